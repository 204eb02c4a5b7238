// Package dashboard is the web dashboard `actctl up` serves
// (docs/dashboard.md): a page of agent cards, a page per agent (its
// resolved template, owned files, next ticks, task history and logs, a
// prompt box, start/stop/restart, an employee's live canvas) and the
// timeline of events and hook runs. Pages are rendered on the server
// (html/template, assets embedded); a little script keeps them live over
// server-sent events fed by the hooks bus (Server.Follow).
//
// What the dashboard shows and does comes from a Source, which `up`
// implements; the security rules (a token exchanged for an HttpOnly
// SameSite=Strict cookie, the Host check against DNS rebinding, POSTs
// whose Origin matches, bounded bodies and live connections, strict
// headers) are the Server's and hold for every route.
package dashboard
