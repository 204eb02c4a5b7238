// actctl dashboard: live updates over server-sent events. Every string
// that came from an agent is set with textContent, never as HTML.
"use strict";
(function () {
	const page = document.body.dataset.page;
	const agent = document.body.dataset.agent;
	const live = document.getElementById("live");

	function viewerTimes(root) {
		for (const t of root.querySelectorAll("time.viewer[datetime]")) {
			const d = new Date(t.getAttribute("datetime"));
			if (!isNaN(d)) t.textContent = d.toLocaleString();
		}
	}

	function fmtUptime(ms) {
		let s = Math.max(0, Math.floor(ms / 1000));
		const h = Math.floor(s / 3600); s -= h * 3600;
		const m = Math.floor(s / 60); s -= m * 60;
		return (h ? h + "h" : "") + (h || m ? m + "m" : "") + s + "s";
	}

	function tickUptimes() {
		if (document.body.dataset.lost) return;
		for (const dd of document.querySelectorAll("[data-f=uptime]")) {
			const since = dd.dataset.since;
			dd.textContent = since ? fmtUptime(Date.now() - Date.parse(since)) : "";
		}
	}

	function updateCard(c) {
		const li = document.querySelector('li.card[data-name="' + CSS.escape(c.name) + '"]');
		if (!li) {
			if (page === "agents" && !filtered()) location.reload();
			return;
		}
		li.dataset.state = c.state;
		for (const el of li.querySelectorAll("[data-f]")) {
			const f = el.dataset.f;
			if (f === "uptime") { el.dataset.since = c.startedAt || ""; continue; }
			let v = c[f];
			if (f === "pid" && !v) v = "";
			el.textContent = v === undefined || v === null ? "" : String(v);
			if (f === "stateText") {
				el.className = "state " + c.class;
				el.dataset.class = c.class;
			}
			if (f === "nextTickText") el.setAttribute("datetime", c.nextTick || "");
		}
		tickUptimes();
		if (page === "agents") recount();
		if (page === "agent" && c.name === agent) {
			followState(c.up);
			followTask(c.running);
		}
	}

	// filtered says whether the agents page shows only some agents.
	function filtered() {
		const f = document.getElementById("filter");
		return !!(f && f.dataset.on);
	}

	// recount draws the counts by state again from the cards (all of
	// them: a filtered page keeps the counts it was served).
	const rank = { crashed: 0, fatal: 0, backoff: 1, starting: 2, stopping: 2, running: 3, "in conversation": 3, stopped: 4 };
	function recount() {
		const ul = document.getElementById("counts");
		if (!ul || filtered()) return;
		const n = new Map(), cls = new Map();
		for (const li of document.querySelectorAll("li.card[data-state]")) {
			n.set(li.dataset.state, (n.get(li.dataset.state) || 0) + 1);
			cls.set(li.dataset.state, li.querySelector("[data-f=stateText]").dataset.class);
		}
		const states = [...n.keys()].sort((a, b) => (rank[a] ?? 5) - (rank[b] ?? 5) || a.localeCompare(b));
		const items = [ul.firstElementChild];
		for (const st of states) {
			const li = document.createElement("li");
			const a = link("/?state=" + encodeURIComponent(st), st + " ");
			a.className = "state " + cls.get(st);
			const span = document.createElement("span");
			span.dataset.n = st;
			span.textContent = String(n.get(st));
			a.append(span);
			li.append(a);
			items.push(li);
		}
		ul.replaceChildren(...items);
	}

	// followState offers what the agent's state allows: Start when up
	// holds no process for it, Stop when it does; the prompt box of an
	// agent that is not running offers Start instead.
	function followState(up) {
		for (const b of document.querySelectorAll("button[data-when]")) b.disabled = (b.dataset.when === "up") !== up;
		const down = document.getElementById("prompt-down"), form = document.getElementById("prompt-form");
		if (down) down.hidden = up;
		if (form) form.hidden = !up;
	}

	// link is an <a> to href saying text.
	function link(href, text) {
		const a = document.createElement("a");
		a.href = href;
		a.textContent = text;
		return a;
	}

	// entryRow is a timeline row as the server draws it (events.html's
	// "entry"): the agent and task as links, the data collapsed.
	function entryRow(e, when) {
		const tr = document.createElement("tr");
		tr.dataset.t = String(when.getTime());
		tr.dataset.seq = String(e.seq);
		if (e.of) { tr.dataset.of = String(e.of); tr.className = "run"; }
		const agentURL = e.agent ? "/agents/" + encodeURIComponent(e.agent) : "";
		const data = document.createDocumentFragment();
		if (e.task && e.agent) data.append(link(agentURL + "/tasks/" + e.task, "task #" + e.task), " ");
		if (e.data) {
			const d = document.createElement("details"); d.className = "data";
			const sum = document.createElement("summary"); sum.textContent = "data (" + new TextEncoder().encode(e.data).length + " bytes)";
			const code = document.createElement("code"); code.textContent = e.data;
			d.append(sum, code);
			data.append(d);
		}
		const cells = [["", when.toLocaleTimeString()], ["", e.event], ["agent", e.agent ? link(agentURL, e.agent) : ""], ["hook", e.hook || ""],
			["outcome", e.outcome || ""], ["duration", e.hook ? e.durationMs + " ms" : ""], ["", data]];
		for (const [label, v] of cells) {
			const td = document.createElement("td");
			if (label) td.dataset.l = label;
			td.append(v);
			tr.appendChild(td);
		}
		return tr;
	}

	function addEntry(e) {
		const table = document.getElementById("timeline");
		if (!table) return;
		if ((table.dataset.agent && table.dataset.agent !== e.agent) || !e.event.startsWith(table.dataset.event || "")) return;
		const when = new Date(e.time);
		const tr = entryRow(e, when);
		const body = table.tBodies[0];
		// A hook run goes under its event's row (after its other runs);
		// the rest newest first, in time order: before the first row not later.
		let at = e.of ? body.querySelector('tr[data-seq="' + e.of + '"]') : null;
		if (at) {
			at = at.nextElementSibling;
			while (at && at.dataset.of === String(e.of)) at = at.nextElementSibling;
		} else {
			at = body.firstElementChild;
			while (at && (at.dataset.of || Number(at.dataset.t) > when.getTime())) at = at.nextElementSibling;
		}
		body.insertBefore(tr, at);
		const max = Number(table.dataset.max) || 1000; // the server's bound: a page left open keeps no more
		while (body.rows.length > max) body.lastElementChild.remove();
		const none = document.getElementById("no-entries");
		if (none) none.remove();
	}

	// An agent's queue as it is now (a "tasks" message): the list is
	// drawn again, its text set as text.
	function drawQueue(q) {
		const old = document.getElementById("queue");
		if (!old) return;
		let el;
		if (q.length === 0) {
			el = document.createElement("p");
			el.textContent = "Empty.";
		} else {
			el = document.createElement("ol");
			for (const t of q) {
				const li = document.createElement("li");
				li.textContent = "#" + t.id + " " + t.kind + (t.running ? " (running)" : "") + ": " + t.prompt + " ";
				li.appendChild(cancelForm(t.id));
				el.appendChild(li);
			}
		}
		el.id = "queue";
		old.replaceWith(el);
	}

	// cancelForm is a task's Cancel button (a plain form).
	function cancelForm(id) {
		const f = document.createElement("form");
		f.method = "post"; f.className = "inline cancel";
		f.action = "/agents/" + encodeURIComponent(agent) + "/tasks/" + id + "/cancel";
		const b = document.createElement("button"); b.dataset.task = id; b.textContent = "Cancel";
		f.appendChild(b);
		f.addEventListener("submit", postQuietly);
		return f;
	}

	// An employee's next ticks as they are now: in the schedule's zone,
	// and in the viewer's.
	function drawTicks(ticks) {
		const body = document.getElementById("ticks");
		if (!body) return;
		const rows = [];
		for (const t of ticks) {
			const tr = document.createElement("tr");
			const zone = document.createElement("td");
			zone.textContent = t.zone;
			const viewer = document.createElement("td");
			const when = document.createElement("time");
			when.className = "viewer";
			when.setAttribute("datetime", t.iso);
			viewer.appendChild(when);
			tr.append(zone, viewer);
			rows.push(tr);
		}
		body.replaceChildren(...rows);
		viewerTimes(body);
	}

	// A task that ended joins the top of the history (the last 50),
	// once.
	function addTaskRow(r) {
		const table = document.getElementById("tasks");
		if (!table || table.querySelector('tr[data-task="' + r.task + '"]')) return;
		const tr = document.createElement("tr");
		tr.dataset.task = String(r.task);
		const link = document.createElement("a");
		link.href = "/agents/" + encodeURIComponent(agent) + "/tasks/" + r.task;
		link.textContent = "#" + r.task;
		const when = document.createElement("time");
		when.setAttribute("datetime", r.startedISO);
		when.textContent = r.started;
		const cells = [link, r.source, when, r.duration, r.stopReason + (r.error ? " (" + r.error + ")" : ""),
			r.perms.allowed + " / " + r.perms.denied];
		for (const v of cells) {
			const td = document.createElement("td");
			if (typeof v === "string") td.textContent = v; else td.appendChild(v);
			tr.appendChild(td);
		}
		const body = table.tBodies[0];
		body.prepend(tr);
		while (body.rows.length > 50) body.lastElementChild.remove();
		table.hidden = false;
		const none = document.getElementById("no-tasks");
		if (none) none.remove();
	}

	// reloadCanvas reloads name's canvas frames (its page's, the wall's).
	function reloadCanvas(name) {
		for (const f of document.querySelectorAll("iframe[data-canvas]")) {
			if (f.dataset.canvas !== name) continue;
			f.hidden = false;
			f.src = "/agents/" + encodeURIComponent(name) + "/canvas?v=" + Date.now();
		}
		for (const p of document.querySelectorAll("[data-no-canvas]")) {
			if (p.dataset.noCanvas === name) p.remove();
		}
	}

	// lost says that the page's up is gone (it stopped, or another one
	// took its place): nothing on the page is live any more, and only a
	// new URL (each up has its own token) opens the new one's pages.
	let es = null;
	function lost() {
		if (document.body.dataset.lost) return;
		if (es) es.close();
		if (taskES) taskES.close();
		if (stderrES) stderrES.close();
		document.body.dataset.lost = "1";
		document.body.dataset.live = "";
		live.textContent = "lost its actctl up";
		const p = document.createElement("p");
		p.id = "lost"; p.className = "lost"; p.setAttribute("role", "alert");
		const code = document.createElement("code"); code.textContent = "actctl dashboard";
		p.append("This page lost its actctl up: it stopped or was restarted, and what the page shows is no longer live. Run ", code,
			" in the workspace for the new URL (each actctl up has its own).");
		document.querySelector("main").prepend(p);
		for (const b of document.querySelectorAll("main button")) b.disabled = true;
	}

	// check asks the server which up answers: none, or another one, is a
	// lost page; the same one means the stream comes back by itself.
	async function check() {
		try {
			const res = await fetch("/api/instance", { headers: { "X-Requested-With": "dashboard" } });
			if (!res.ok || (await res.json()).instance !== document.body.dataset.instance) lost();
		} catch (e) {
			lost();
		}
	}

	function connect() {
		es = new EventSource("/live");
		es.onopen = function () { live.textContent = "live"; document.body.dataset.live = "1"; };
		es.onerror = function () {
			if (document.body.dataset.lost) return;
			live.textContent = "reconnecting"; document.body.dataset.live = "";
			check();
		};
		es.addEventListener("hello", function (m) { if (JSON.parse(m.data).instance !== document.body.dataset.instance) lost(); });
		es.addEventListener("agent", function (m) { updateCard(JSON.parse(m.data)); });
		es.addEventListener("gone", function () { if (page === "agents" && !filtered()) location.reload(); });
		es.addEventListener("entry", function (m) { addEntry(JSON.parse(m.data)); });
		es.addEventListener("canvas", function (m) { reloadCanvas(JSON.parse(m.data).name); });
		es.addEventListener("task", function (m) {
			const d = JSON.parse(m.data);
			if (page === "agent" && d.name === agent) followTask(d.task);
		});
		es.addEventListener("tasks", function (m) {
			const d = JSON.parse(m.data);
			if (page !== "agent" || d.name !== agent) return;
			drawQueue(d.queue);
			if (d.ticks) drawTicks(d.ticks);
			if (d.done) addTaskRow(d.done);
		});
		es.addEventListener("reload", function () { location.reload(); });
	}

	// renderer returns a function that appends a log item (dashboard.Item)
	// to box: text joins the text before it, a tool call is updated in
	// place.
	// A permission request put to the person shows its options as
	// buttons when answer (the conversation's answer URL) is given; its
	// decision replaces it.
	function renderer(box, answer) {
		const tools = new Map(), asks = new Map();
		let last = null;
		return function (it) {
			if (it.kind === "text") {
				if (!last) { last = document.createElement("div"); last.className = "msg"; box.appendChild(last); }
				last.textContent += it.text;
				return;
			}
			last = null;
			if (it.kind === "ask") {
				const el = askElement(it, answer);
				asks.set(it.id, el);
				box.appendChild(el);
				return;
			}
			if (it.kind === "tool" && tools.has(it.id)) {
				const el = tools.get(it.id);
				if (it.title) el.querySelector(".title").textContent = it.title;
				if (it.status) { el.querySelector(".status").textContent = " " + it.status; el.dataset.status = it.status; }
				return;
			}
			const el = document.createElement("div");
			el.className = { tool: "tool", permission: "perm", plugin: "plugin", done: "stop done", stop: "stop", error: "err" }[it.kind] || "msg";
			const title = document.createElement("span"); title.className = "title";
			const status = document.createElement("span"); status.className = "status";
			if (it.kind === "tool" || it.kind === "permission") {
				title.textContent = it.title || "";
				status.textContent = " " + (it.status || "") + (it.kind === "permission" && it.text ? " " + it.text : "");
				el.dataset.status = it.status || "";
				if (it.kind === "tool") tools.set(it.id, el);
			} else if (it.kind === "done") {
				title.textContent = "stop: " + (it.status || "") + " (" + it.text + ")";
			} else if (it.kind === "stop") {
				title.textContent = "stop: " + (it.text || "");
			} else {
				title.textContent = (it.kind === "error" ? "error: " : "") + (it.text || "");
			}
			el.append(title, status);
			if (it.kind === "permission" && asks.has(it.id)) {
				el.dataset.id = it.id;
				asks.get(it.id).replaceWith(el);
				asks.delete(it.id);
				return;
			}
			box.appendChild(el);
		};
	}

	// askElement is a permission request put to the person: with answer,
	// one button per option of the agent's, each a form the page posts.
	function askElement(it, answer) {
		const el = document.createElement("div");
		el.className = "ask";
		el.dataset.id = it.id;
		const title = document.createElement("span"); title.className = "title"; title.textContent = it.title || "";
		const status = document.createElement("span"); status.className = "status"; status.textContent = it.status || "";
		el.append("permission ", title, ": ", status);
		if (!answer) { el.append(" (in its conversation)"); return el; }
		for (const o of it.options || []) {
			const f = document.createElement("form");
			f.method = "post"; f.action = answer; f.className = "inline answer";
			for (const [k, v] of [["call", it.id], ["option", o.optionId]]) {
				const i = document.createElement("input"); i.type = "hidden"; i.name = k; i.value = v; f.appendChild(i);
			}
			const b = document.createElement("button"); b.dataset.kind = o.kind; b.textContent = o.name;
			f.appendChild(b);
			f.addEventListener("submit", postQuietly);
			el.append(" ", f);
		}
		return el;
	}

	// postQuietly sends a form from the page's script, staying on the page.
	async function postQuietly(ev) {
		ev.preventDefault();
		const f = ev.currentTarget;
		for (const b of f.querySelectorAll("button")) b.disabled = true;
		const res = await fetch(f.action, { method: "POST", body: new URLSearchParams(new FormData(f)), headers: { "X-Requested-With": "dashboard" } });
		if (!res.ok) {
			const p = document.createElement("p"); p.className = "err"; p.textContent = await res.text();
			f.after(p);
			for (const b of f.querySelectorAll("button")) b.disabled = false;
		}
	}

	// The running task's log, live. When the task ends its log stays (and
	// its last lines still come); the next task replaces it.
	let taskES = null, taskID = "";
	function followTask(id) {
		const box = document.getElementById("livelog");
		const p = document.getElementById("running");
		id = id ? String(id) : "";
		if (!box || !p) return;
		if (!id) {
			if (taskID) p.dataset.ended = taskID;
			return;
		}
		if (id === taskID) return;
		if (taskES) taskES.close();
		taskID = id;
		box.replaceChildren();
		box.dataset.task = id;
		p.replaceChildren();
		delete p.dataset.ended;
		const a = document.createElement("a");
		a.href = "/agents/" + encodeURIComponent(agent) + "/tasks/" + id;
		a.textContent = "task #" + id;
		p.appendChild(a);
		const show = renderer(box);
		taskES = new EventSource("/agents/" + encodeURIComponent(agent) + "/tasks/" + id + "/live");
		taskES.addEventListener("item", function (m) { show(JSON.parse(m.data)); });
	}

	// The process's stderr, live from where the page's copy ends; the
	// page keeps its last 500 lines.
	let stderrES = null;
	function followStderr() {
		const box = document.getElementById("stderr");
		if (!box) return;
		stderrES = new EventSource("/agents/" + encodeURIComponent(agent) + "/stderr/live?from=" + encodeURIComponent(box.dataset.from || "0"));
		stderrES.addEventListener("line", function (m) {
			const div = document.createElement("div");
			div.textContent = JSON.parse(m.data);
			box.appendChild(div);
			while (box.childElementCount > 500) box.firstElementChild.remove();
			const none = document.getElementById("no-stderr");
			if (none) none.remove();
		});
	}

	// The prompt box: the reply streams in as JSON lines of items.
	function promptBox() {
		const form = document.getElementById("prompt-form");
		if (!form) return;
		const reply = document.getElementById("reply");
		form.addEventListener("submit", async function (ev) {
			ev.preventDefault();
			const text = form.elements.text.value;
			reply.replaceChildren();
			reply.dataset.state = "streaming";
			const show = renderer(reply);
			try {
				const res = await fetch(form.action, { method: "POST", body: new URLSearchParams({ text: text }), headers: { "X-Requested-With": "dashboard" } });
				if (!res.ok) { show({ kind: "error", text: await res.text() }); reply.dataset.state = "error"; return; }
				const reader = res.body.getReader();
				const dec = new TextDecoder();
				let buf = "";
				for (;;) {
					const { value, done } = await reader.read();
					if (done) break;
					buf += dec.decode(value, { stream: true });
					let i;
					while ((i = buf.indexOf("\n")) >= 0) {
						const line = buf.slice(0, i); buf = buf.slice(i + 1);
						if (line) show(JSON.parse(line));
					}
				}
				reply.dataset.state = "done";
			} catch (e) {
				show({ kind: "error", text: String(e) });
				reply.dataset.state = "error";
			}
		});
	}

	// A conversation's page: the next turn is sent, and followed live, in
	// place; Cancel and the answers to permission requests are posted
	// without leaving the page.
	function conversation() {
		const sec = document.getElementById("conversation");
		if (!sec) return;
		const base = "/agents/" + encodeURIComponent(agent) + "/sessions/" + encodeURIComponent(sec.dataset.session);
		const cancel = document.getElementById("cancel-form");
		const form = document.getElementById("say-form");
		let es = null;
		function finish(task) {
			if (es) es.close();
			es = null;
			delete sec.dataset.running;
			sec.dataset.ended = task;
			cancel.hidden = true;
		}
		function follow(task, box) {
			if (es) es.close();
			box.replaceChildren();
			sec.dataset.running = task;
			cancel.hidden = false;
			const show = renderer(box, base + "/answer");
			es = new EventSource(base + "/live?task=" + encodeURIComponent(task));
			let stopped = false;
			es.addEventListener("item", function (m) {
				const it = JSON.parse(m.data);
				if (it.kind === "stop") stopped = true;
				show(it);
			});
			// The turn's task ended and its whole log came: how it ended,
			// when the agent's answer did not say (cancelled before it
			// began, an error).
			es.addEventListener("end", function (m) {
				const row = JSON.parse(m.data);
				if (row.error) show({ kind: "error", text: row.error });
				else if (!stopped) show({ kind: "stop", text: row.stopReason });
				finish(task);
			});
		}
		for (const f of document.querySelectorAll("form.answer")) f.addEventListener("submit", postQuietly);
		cancel.addEventListener("submit", postQuietly);
		const running = document.querySelector("article.turn[data-running]");
		if (running) follow(running.dataset.task, running.querySelector(".reply"));
		form.addEventListener("submit", async function (ev) {
			ev.preventDefault();
			const text = form.elements.text.value;
			const res = await fetch(form.action, { method: "POST", body: new URLSearchParams({ text: text }), headers: { "X-Requested-With": "dashboard" } });
			if (!res.ok) { const p = document.createElement("p"); p.className = "err"; p.textContent = await res.text(); form.after(p); return; }
			const task = String((await res.json()).task);
			const art = document.createElement("article");
			art.className = "turn"; art.dataset.task = task;
			const you = document.createElement("div"); you.className = "you";
			const a = document.createElement("a"); a.href = "/agents/" + encodeURIComponent(agent) + "/tasks/" + task; a.textContent = "#" + task;
			you.append(a, " " + text);
			const box = document.createElement("div"); box.className = "log reply"; box.id = "turn-" + task; box.setAttribute("aria-live", "polite");
			art.append(you, box);
			document.getElementById("turns").appendChild(art);
			const none = document.getElementById("no-turns");
			if (none) none.remove();
			form.elements.text.value = "";
			follow(task, box);
		});
	}

	// Start, stop and restart without leaving the page.
	function controls() {
		const out = document.getElementById("ctl-result");
		for (const form of document.querySelectorAll("form.ctl")) {
			form.addEventListener("submit", async function (ev) {
				ev.preventDefault();
				out.textContent = form.action.split("/").pop() + "…";
				const res = await fetch(form.action, { method: "POST", headers: { "X-Requested-With": "dashboard" } });
				out.textContent = await res.text();
			});
		}
	}

	viewerTimes(document);
	tickUptimes();
	setInterval(tickUptimes, 1000);
	promptBox();
	controls();
	conversation();
	// A task's Cancel in its row: the live queue shows what became of it.
	for (const f of document.querySelectorAll("form.cancel")) f.addEventListener("submit", postQuietly);
	const live0 = document.getElementById("livelog");
	if (live0 && live0.dataset.task) followTask(live0.dataset.task);
	followStderr();
	connect();
})();
