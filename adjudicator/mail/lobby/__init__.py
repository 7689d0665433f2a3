"""Games players start themselves: the lobby by mail (docs/lobby.md).

A mail to the service's own address (`REPLY_LOCAL@REPLY_DOMAIN`) whose first line is
`new game NAME` opens a pending game and invites the players it names (`parsing`); each
party of a pending game answers at an address of their own, `REPLY_LOCAL+lobby-SEAT-TOKEN`
(`seats`), whose token proves the invitation and the invited address together. What the
lobby keeps is one record per pending game (`records`); the mails it sends are in
`answers`; the mail in is read by `inbound`; the game is made, once everybody has
accepted, by `starting`, exactly as `pamir new` makes one.

The host decides who may: the setting `lobby` is `off` (the default), `invite` (the
addresses and domains of `lobby_allow`) or `open`.
"""
