// The control page's behaviour: JSON posts with the CSRF token, the PIN box,
// the tap pad and buttons, live updates from the server-sent-events stream,
// the setup form and the level meter. No framework, no build step.
"use strict";
(() => {
  const body = document.body;
  const csrf = document.querySelector('meta[name="csrf-token"]').content;
  const msg = document.getElementById("msg");
  const pinForm = document.getElementById("pin-form");
  let msgTimer = 0;

  // A toast, on the half of the screen away from the Undo button.
  function say(text, ok) {
    msg.textContent = text;
    const undo = document.querySelector("[data-undo]");
    const r = undo ? undo.getBoundingClientRect() : null;
    msg.classList.toggle("top", !!r && r.bottom > 0 && r.top + r.height / 2 > innerHeight / 2);
    msg.hidden = false;
    msg.classList.toggle("ok", !!ok);
    clearTimeout(msgTimer);
    msgTimer = setTimeout(() => { msg.hidden = true; }, ok ? 2500 : 4500);
  }

  // POST JSON; resolves to the reply's JSON, or null after showing the error.
  async function post(url, data) {
    let res;
    try {
      res = await fetch(url, {
        method: "POST", credentials: "same-origin",
        headers: { "Content-Type": "application/json", "X-CSRFToken": csrf },
        body: JSON.stringify(data === undefined ? {} : data),
      });
    } catch (err) {
      say("The table cannot be reached: " + err.message);
      return null;
    }
    let reply = null;
    try { reply = await res.json(); } catch (err) { reply = null; }
    if (!res.ok) {
      if (reply && reply.field === "pin" && res.status === 403 && url !== "/api/pin") {
        pinForm.hidden = false;
        document.getElementById("pin").focus();
      }
      // The message says what is wrong in words; the field's name is for programs.
      say((reply && reply.error) || "The table refused that (" + res.status + ").");
      return null;
    }
    return reply || {};
  }

  // A view polled from ``url`` (GET) and changed by posts whose replies are
  // the new view; ``show(view)`` draws it, ``lost()`` says the table cannot
  // be reached. A poll's reply is shown only when no later poll and no
  // change was asked for after it, and no change is still unanswered: on a
  // busy table a poll answered late would put back what a tap or a drag had
  // just changed. A change's reply is shown unless a later change was sent.
  function polled(url, show, lost) {
    let polls = 0;
    let changes = 0;
    let posting = 0;
    async function load() {
      const mine = ++polls;
      const since = changes;
      let view;
      try {
        const res = await fetch(url, { credentials: "same-origin" });
        view = await res.json();
      } catch (err) {
        lost();
        return;
      }
      if (mine === polls && since === changes && !posting) show(view);
    }
    async function change(to, data) {
      const mine = ++changes;
      posting += 1;
      let view;
      try { view = await post(to, data); } finally { posting -= 1; }
      if (view && mine === changes) show(view);
      return view;
    }
    return { load, change };
  }
  // The page's own scripts (seats.js, voices.js) post and speak through these.
  window.companion = { post, say, polled };

  pinForm.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const input = document.getElementById("pin");
    const reply = await post("/api/pin", { pin: input.value });
    input.value = "";
    if (reply) {
      pinForm.hidden = true;
      body.dataset.pinOk = "yes";
      say("PIN accepted", true);
    }
  });

  // Reads the inputs a button names in data-fields into its event.
  function gather(btn, event) {
    const scope = btn.closest("details, .pad, form, section") || document;
    for (const name of (btn.dataset.fields || "").split(" ").filter(Boolean)) {
      const el = scope.querySelector('[name="' + name + '"]');
      if (!el) continue;
      let value = el.value;
      if (el.hasAttribute("data-list")) value = value ? value.split(",").filter(Boolean) : [];
      else if (el.hasAttribute("data-int")) value = value === "" ? null : Number(value);
      event[name] = value;
    }
    return event;
  }

  // What the undo undid, in the log's words ("Undone: Beth's flip of a gun.").
  async function undoneWords() {
    try {
      const snap = await (await fetch("/api/state", { credentials: "same-origin" })).json();
      const top = (snap.log || [])[0];
      if (top && top.type === "undone" && top.text) return top.text;
    } catch (err) { /* the words are a courtesy: fall back to the plain one */ }
    return "Undone.";
  }

  document.addEventListener("click", async (ev) => {
    const btn = ev.target.closest("button");
    if (!btn) return;
    const d = btn.dataset;
    if (d.event !== undefined) {
      const reply = await post("/api/events", gather(btn, JSON.parse(d.event)));
      if (reply) {
        const scope = btn.closest("details, .pad, form, section") || document;
        scope.querySelectorAll("[data-list]").forEach((el) => { el.value = ""; });
      }
    } else if (d.append !== undefined) {
      const el = document.getElementById(d.append);
      el.value = el.value ? el.value + "," + d.value : d.value;
    } else if (d.set !== undefined) {
      document.getElementById(d.set).value = d.value;
      btn.parentElement.querySelectorAll("button").forEach((b) => b.classList.toggle("on", b === btn));
    } else if (d.clear !== undefined) {
      document.getElementById(d.clear).value = "";
    } else if (d.undo !== undefined) {
      if (await post("/api/undo")) say(await undoneWords(), true);
    } else if (d.press !== undefined) {
      await post("/api/press", { player: d.press });
    } else if (d.resume !== undefined) {
      if (await post("/api/games/" + d.resume + "/resume")) location.href = "/";
    }
  });

  // --- the table: live updates --------------------------------------------
  function setTurn(snap) {
    const el = document.querySelector("#status .turn");
    el.textContent = "";
    const b = document.createElement("b");
    if (snap.winner) {
      b.textContent = snap.winner;
      el.append(b, " has won");
    } else if (snap.turn) {
      b.id = "turn";
      b.textContent = snap.turn;
      el.append(b, "'s turn");
    }
    document.getElementById("leaders").textContent =
      snap.leaders && snap.leaders.length ? "Leading: " + snap.leaders.join(", ") : "";
    document.querySelectorAll(".actor").forEach((a) => { a.textContent = snap.actor || snap.turn || "…"; });
  }

  // A window running out (a call's, a challenge's): the snapshot gives its
  // deadline and the table clock when it was taken, both in seconds; the page
  // counts down by itself, since no snapshot comes while time merely passes.
  let countdownTimer = null;
  function showDeadline(snap) {
    let el = document.getElementById("countdown");
    if (!el) {
      el = document.createElement("span");
      el.id = "countdown";
      el.className = "countdown";
      el.hidden = true;
      document.getElementById("status").append(el);
    }
    clearInterval(countdownTimer);
    el.hidden = true;
    if (snap.deadline == null || snap.now == null) return;
    const ends = performance.now() / 1000 + (snap.deadline - snap.now);
    const draw = () => {
      const left = ends - performance.now() / 1000;
      el.hidden = left <= 0;
      if (left <= 0) { clearInterval(countdownTimer); return; }
      el.textContent = Math.ceil(left) + " s left";
    };
    draw();
    countdownTimer = setInterval(draw, 200);
  }

  // The companion's health line (companion.web.status.health), as text.
  function healthHtml(parts) {
    const box = document.createElement("div");
    for (const h of parts) {
      const span = document.createElement("span");
      span.className = "h h-" + h.state;
      span.dataset.part = h.part;
      span.textContent = h.text;
      box.append(span);
    }
    return box.innerHTML;
  }

  // The newest ruling at the top of the table, big for a few seconds.
  const LATEST_BIG_MS = 6000;
  let latestTimer = 0;
  function showLatest(latest) {
    const el = document.getElementById("latest");
    if (!el || !latest) return;
    const key = String(latest.i);
    if (el.dataset.i === key) return;
    el.dataset.i = key;
    el.querySelector(".head").textContent = latest.text;
    el.querySelector(".after").textContent = latest.more || "";
    el.className = "latest-text fresh r-" + latest.type + (latest.text.length > 70 ? " long" : "");
    clearTimeout(latestTimer);
    latestTimer = setTimeout(() => el.classList.remove("fresh"), LATEST_BIG_MS);
  }

  // Pad parts marked data-open-when="<awaiting> ...": opened and moved
  // first while the game waits for them (the Cheat reveal after a challenge).
  function showNeeded(snap) {
    const awaiting = snap.view && snap.view.state ? snap.view.state.awaiting : null;
    document.querySelectorAll("[data-open-when]").forEach((el) => {
      const now = !!awaiting && el.dataset.openWhen.split(" ").includes(awaiting);
      el.classList.toggle("now", now);
      if (el.tagName === "DETAILS" && now) el.open = true;
    });
  }

  if (body.dataset.page === "table") {
    const live = document.getElementById("live");
    const shown = body.dataset.gameId || "";
    const stream = new EventSource("/api/events/stream");
    stream.addEventListener("table", (ev) => {
      const snap = JSON.parse(ev.data);
      if (String(snap.game_id ?? "") !== shown) { location.reload(); return; }
      document.getElementById("board").innerHTML = snap.board;
      document.getElementById("log").innerHTML = snap.log_html;
      document.getElementById("health").innerHTML = healthHtml(snap.health || []);
      showLatest(snap.latest);
      showNeeded(snap);
      setTurn(snap);
      showDeadline(snap);
      live.dataset.seq = snap.seq;
      live.textContent = "live";
      live.classList.add("up");
    });
    stream.addEventListener("error", () => {
      live.textContent = "reconnecting…";
      live.classList.remove("up");
    });
    addEventListener("pagehide", () => stream.close());
  }

  // --- setup -----------------------------------------------------------------
  const setup = document.getElementById("setup-form");
  if (setup) {
    const list = document.getElementById("players");
    const chosen = () => (setup.querySelector('input[name="game"]:checked') || {}).value;
    const showOptions = () => setup.querySelectorAll("fieldset.options").forEach((fs) => {
      fs.hidden = fs.dataset.game !== chosen();
    });
    setup.addEventListener("change", (ev) => { if (ev.target.name === "game") showOptions(); });
    // "First player": a choice among the names seated now.
    const seatNames = () => [...list.querySelectorAll('input[name="player"]')]
      .map((el) => el.value.trim()).filter(Boolean);
    const syncFirst = () => setup.querySelectorAll('select[data-kind="seat"]').forEach((sel) => {
      const keep = sel.value;
      [...sel.options].slice(1).forEach((o) => o.remove());
      for (const name of seatNames()) sel.add(new Option(name, name));
      sel.value = seatNames().includes(keep) ? keep : "";
    });
    list.addEventListener("input", syncFirst);
    list.addEventListener("click", () => setTimeout(syncFirst));
    document.getElementById("add-player").addEventListener("click", () => {
      const rows = list.querySelectorAll("li");
      const row = rows[rows.length - 1].cloneNode(true);
      row.querySelector('input[name="player"]').value = "";
      const sel = row.querySelector("select");
      sel.value = String(Math.min(rows.length + 1, 10));
      list.append(row);
      row.querySelector("input").focus();
    });
    list.addEventListener("click", (ev) => {
      const btn = ev.target.closest("button");
      if (!btn) return;
      const row = btn.closest("li");
      if (btn.dataset.remove !== undefined && list.children.length > 1) row.remove();
      if (btn.dataset.move === "up" && row.previousElementSibling) {
        list.insertBefore(row, row.previousElementSibling);
      }
    });
    const optionValue = (el) => {
      const v = el.value;
      switch (el.dataset.kind) {
        case "bool": return el.checked;
        case "int": case "float": return v.trim() === "" ? null : (isNaN(Number(v)) ? v : Number(v));
        case "text": return v === "" && el.dataset.optional === "yes" ? null : v;
        case "seat": return v === "" ? null : v;
        case "choice": return JSON.parse(v);
        default: try { return JSON.parse(v); } catch (err) { return v; }
      }
    };
    setup.addEventListener("submit", async (ev) => {
      ev.preventDefault();
      const game = chosen();
      const players = [];
      const buttons = {};
      list.querySelectorAll("li").forEach((row) => {
        const name = row.querySelector('input[name="player"]').value.trim();
        if (!name) return;
        players.push(name);
        const b = row.querySelector("select").value;
        if (b) buttons[name] = Number(b);
      });
      const options = {};
      setup.querySelectorAll('fieldset.options[data-game="' + game + '"] [data-opt]').forEach((el) => {
        const path = el.dataset.opt.split(".");
        let node = options;
        path.slice(0, -1).forEach((k) => { node = node[k] = node[k] || {}; });
        node[path[path.length - 1]] = optionValue(el);
      });
      const reply = await post("/api/games", { game, players, buttons, options });
      if (reply) location.href = "/";
    });
  }

  // --- settings: device choice and level meter ----------------------------------
  const device = document.getElementById("input-device");
  if (device) {
    device.addEventListener("change", async () => {
      if (device.value === "") return;
      if (await post("/api/settings", { input_device: Number(device.value) })) say("Microphone chosen", true);
    });
    const bar = document.getElementById("level-bar");
    const text = document.getElementById("level-text");
    setInterval(async () => {
      if (document.hidden) return;
      try {
        const res = await fetch("/api/level");
        const lv = await res.json();
        if (lv.level_db === null) {
          bar.style.width = "0";
          text.textContent = "Level: none (the microphone is not open)";
        } else {
          bar.style.width = Math.max(0, Math.min(100, (lv.level_db + 60) / 60 * 100)) + "%";
          text.textContent = "Level: " + lv.level_db.toFixed(1) + " dBFS";
        }
      } catch (err) { text.textContent = "Level: unavailable"; }
    }, 250);
  }
})();
