// Finger Guns on a player's own phone: claim a seat, then pick a target and a
// card privately. Only this phone's picks are ever fetched (/api/finger-guns/me);
// the table's live stream just says when to fetch again. No framework.
"use strict";
(() => {
  const csrf = document.querySelector('meta[name="csrf-token"]').content;
  const $ = (id) => document.getElementById(id);
  const msg = $("msg");
  const losing = new Set();
  let timer = 0;
  let asked = 0;  // refreshes asked for: only the latest one's reply is shown

  function say(text, ok) {
    msg.textContent = text;
    msg.hidden = false;
    msg.classList.toggle("ok", !!ok);
    clearTimeout(timer);
    timer = setTimeout(() => { msg.hidden = true; }, ok ? 1500 : 4500);
  }

  async function post(url, data) {
    let res;
    try {
      res = await fetch(url, {
        method: "POST", credentials: "same-origin",
        headers: { "Content-Type": "application/json", "X-CSRFToken": csrf },
        body: JSON.stringify(data),
      });
    } catch (err) { say("The table cannot be reached: " + err.message); return null; }
    let reply = null;
    try { reply = await res.json(); } catch (err) { reply = null; }
    if (!res.ok) {
      if (reply && reply.field === "pin") $("pin-form").hidden = false;
      say((reply && reply.error) || "The table refused that (" + res.status + ").");
      return null;
    }
    await refresh();
    return reply || {};
  }

  function button(label, cls, on, pressed, disabled) {
    const b = document.createElement("button");
    b.type = "button";
    b.className = "btn " + cls + (pressed ? " go" : "");
    b.textContent = label;
    b.disabled = !!disabled;
    b.setAttribute("aria-pressed", pressed ? "true" : "false");
    b.addEventListener("click", on);
    return b;
  }

  function renderSeats(r) {
    const grid = $("fg-seats");
    grid.replaceChildren(...r.players.map((p) => button(
      p, "press", () => post("/api/finger-guns/seat", { player: p }), false,
      r.claimed.includes(p))));
    $("fg-seat").hidden = false;
    $("fg-picks").hidden = true;
    $("fg-status").textContent = "Tap your name. Each name can be taken by one phone only.";
  }

  function renderPicks(r) {
    const v = r.view;
    const you = v.you;
    const row = v.players.find((p) => p.name === r.seat);
    const targetLocked = "target" in row;
    const cardLocked = "card" in row;
    $("fg-seat").hidden = true;
    $("fg-picks").hidden = false;
    $("fg-me").textContent = r.seat + (row.dead ? " (dead)" : "");
    $("fg-status").textContent = v.phase === "over"
      ? "The game is over: " + v.winners.join(" and ") + (v.winners.length === 1 ? " wins." : " share the win.")
      : "Round " + v.round + (v.counting ? ": countdown running!" : ".");
    $("fg-step").textContent = v.step ? "Step " + v.step + ": pick your " + v.pick + "." : "";
    $("fg-lives").textContent = row.lives;
    $("fg-lives-word").textContent = (row.lives === 1 ? "life" : "lives") + (row.dead ? ", out" : " left");
    const last = r.last_round;
    $("fg-last").hidden = !last;
    if (last) {
      $("fg-last-title").textContent = "Last round" + (last.round ? " (" + last.round + ")" : "") + ":";
      $("fg-last-lines").replaceChildren(...(last.lines.length ? last.lines : ["Nothing hit you."]).map((t) => {
        const li = document.createElement("li");
        li.textContent = t;
        return li;
      }));
    }
    $("fg-targets").replaceChildren(...r.players.filter((p) => p !== r.seat).map((p) => button(
      p, "press", () => post("/api/finger-guns/choose", { target: p }), you.target === p,
      targetLocked || v.phase !== "picking" && v.phase !== "countdown")));
    const cardButton = (c) => button(
      c.code + " · " + c.id, "card", () => post("/api/finger-guns/choose", { card: c.id }),
      you.card === c.id, cardLocked || v.phase !== "picking" && v.phase !== "countdown");
    $("fg-own").replaceChildren(...row.cards.map(cardButton));
    $("fg-centre").replaceChildren(...v.centre.map(cardButton));
    $("fg-mine").textContent = "Your picks: " + (you.target ? "at " + you.target : "no target") +
      ", " + (you.card ? "card " + you.card : "no card") + (targetLocked || cardLocked ? " (locked)" : "") + ".";
    $("fg-discard").hidden = !row.owed;
    if (row.owed) {
      $("fg-owed").textContent = row.owed;
      $("fg-lose").replaceChildren(...row.cards.map((c) => button(
        c.code + " · " + c.id, "card", () => {
          if (losing.has(c.id)) losing.delete(c.id); else losing.add(c.id);
          renderPicks(r);
        }, losing.has(c.id), false)));
    } else {
      losing.clear();
    }
  }

  async function refresh() {
    const mine = ++asked;
    let res;
    try { res = await fetch("/api/finger-guns/me", { credentials: "same-origin" }); }
    catch (err) { $("fg-status").textContent = "The table cannot be reached."; return; }
    const reply = await res.json();
    // A reply to an earlier refresh that arrives after a later one was asked
    // for (the table's push crossing a tap on a name) would show the seats
    // again over the player's picks.
    if (mine !== asked) return;
    if (!res.ok) {
      $("fg-status").textContent = reply.error || "No Finger Guns game is in play.";
      $("fg-seat").hidden = true;
      $("fg-picks").hidden = true;
      return;
    }
    if (reply.seat) renderPicks(reply); else renderSeats(reply);
  }

  $("fg-discard-go").addEventListener("click", () =>
    post("/api/finger-guns/discard", { cards: [...losing] }).then((ok) => { if (ok) losing.clear(); }));
  const stream = new EventSource("/api/events/stream");
  stream.addEventListener("table", refresh);
  addEventListener("pagehide", () => stream.close());
  refresh();
})();
