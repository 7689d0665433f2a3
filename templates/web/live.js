// The game's pages refresh themselves when the game moves (docs/web.md#live-pages), and the
// private page's draft buttons answer without a full reload. Everything works without it.
(function () {
  "use strict";
  var me = document.currentScript;
  var url = me && me.getAttribute("data-version");
  var head = me && me.getAttribute("data-head");
  var every = Number(me && me.getAttribute("data-interval")) || 5000;
  var sending = 0; // draft forms on their way: their answer, not a reload, shows the game
  if (url && head !== null) {
    var tag = null;
    setInterval(function () {
      var headers = tag ? { "If-None-Match": tag } : {};
      fetch(url, { headers: headers, cache: "no-store" }).then(function (answer) {
        if (answer.status !== 200) return null;
        tag = answer.headers.get("ETag");
        return answer.json();
      }).then(function (version) {
        if (!version || version.head === head) return;
        if (sending) tag = null; // asked again once the answer has come
        else location.reload();
      }).catch(function () {});
    }, every);
  }
  document.addEventListener("submit", function (event) {
    var form = event.target;
    if (!form.classList || !form.classList.contains("draft")) return;
    event.preventDefault();
    sending += 1;
    fetch(form.action, { method: "POST", body: new URLSearchParams(new FormData(form)) })
      .then(function (answer) { return answer.text(); })
      .then(function (text) {
        var page = new DOMParser().parseFromString(text, "text/html");
        document.querySelector("main").replaceWith(page.querySelector("main"));
        // A draft submitted here moved the game: the answer shows it, no reload is due.
        var next = page.querySelector("script[data-head]");
        if (next) head = next.getAttribute("data-head");
      })
      .catch(function () { form.submit(); })
      .then(function () { sending -= 1; });
  });
})();
