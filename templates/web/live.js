// The game's pages refresh themselves when the game moves (docs/web.md#live-pages), and the
// private page's draft buttons answer without a full reload. Everything works without it.
(function () {
  "use strict";
  var me = document.currentScript;
  var url = me && me.getAttribute("data-version");
  var head = me && me.getAttribute("data-head");
  if (url && head !== null) {
    var tag = null;
    setInterval(function () {
      var headers = tag ? { "If-None-Match": tag } : {};
      fetch(url, { headers: headers, cache: "no-store" }).then(function (answer) {
        if (answer.status !== 200) return null;
        tag = answer.headers.get("ETag");
        return answer.json();
      }).then(function (version) {
        if (version && version.head !== head) location.reload();
      }).catch(function () {});
    }, 5000);
  }
  document.addEventListener("submit", function (event) {
    var form = event.target;
    if (!form.classList || !form.classList.contains("draft")) return;
    event.preventDefault();
    fetch(form.action, { method: "POST", body: new URLSearchParams(new FormData(form)) })
      .then(function (answer) { return answer.text(); })
      .then(function (text) {
        var page = new DOMParser().parseFromString(text, "text/html");
        document.querySelector("main").replaceWith(page.querySelector("main"));
      })
      .catch(function () { form.submit(); });
  });
})();
