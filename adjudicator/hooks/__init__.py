"""Self-hosted bare game repositories: the Git hooks that adjudicate a push.

`receive` installs the hooks and runs them: pre-receive refuses a push that is not the
next legal move of its author, post-receive adjudicates it and mails the reports.
Imports `games`, `mail` and `home`.
"""
