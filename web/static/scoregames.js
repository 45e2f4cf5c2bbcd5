// Score entry forms of Cheap Shot and Rummy Battle: a button with
// data-sg-event='{"type": ...}' posts that event to /api/events with every
// input of its [data-sg-scope] that has a data-sg path ("cards_left.Abby",
// "played.Beth.aces") filled in; data-sg-kind says how to read it: "int"
// (empty inputs are left out), "bool" (a checkbox), "list" (checked boxes
// gathered into a list, possibly empty). Refusals show the error in words (the field's name is for programs).
"use strict";
(() => {
  const csrf = document.querySelector('meta[name="csrf-token"]').content;
  const msg = document.getElementById("msg");
  let timer = 0;

  function say(text, ok) {
    msg.textContent = text;
    msg.hidden = false;
    msg.classList.toggle("ok", !!ok);
    clearTimeout(timer);
    timer = setTimeout(() => { msg.hidden = true; }, ok ? 1500 : 4500);
  }

  function put(obj, path, value) {
    const keys = path.split(".");
    let node = obj;
    keys.slice(0, -1).forEach((k) => { node = node[k] = node[k] || {}; });
    node[keys[keys.length - 1]] = value;
  }

  function get(obj, path) {
    return path.split(".").reduce((node, k) => (node ? node[k] : undefined), obj);
  }

  function gather(scope, event) {
    scope.querySelectorAll("[data-sg]").forEach((el) => {
      const path = el.dataset.sg;
      const kind = el.dataset.sgKind || "text";
      if (kind === "list") {
        if (get(event, path) === undefined) put(event, path, []);
        if (el.checked) get(event, path).push(el.value);
      } else if (kind === "bool") {
        put(event, path, el.checked);
      } else if (kind === "int") {
        if (el.value.trim() !== "") put(event, path, Number(el.value));
      } else if (el.value !== "") {
        put(event, path, el.value);
      }
    });
    return event;
  }

  document.addEventListener("click", async (ev) => {
    const btn = ev.target.closest("button[data-sg-event]");
    if (!btn) return;
    const scope = btn.closest("[data-sg-scope]") || document;
    const event = gather(scope, JSON.parse(btn.dataset.sgEvent));
    let res;
    try {
      res = await fetch("/api/events", {
        method: "POST", credentials: "same-origin",
        headers: { "Content-Type": "application/json", "X-CSRFToken": csrf },
        body: JSON.stringify(event),
      });
    } catch (err) { say("The table cannot be reached: " + err.message); return; }
    const reply = await res.json().catch(() => null);
    if (!res.ok) {
      if (reply && reply.field === "pin") document.getElementById("pin-form").hidden = false;
      say((reply && reply.error) || "The table refused that (" + res.status + ").");
      return;
    }
    say("Entered", true);
    if (btn.dataset.sgReset !== undefined) {
      scope.querySelectorAll('[data-sg-kind="int"]').forEach((el) => { el.value = ""; });
      scope.querySelectorAll('[data-sg-kind="list"], [data-sg-kind="bool"]').forEach((el) => { el.checked = false; });
    }
  });
})();
