// The voices page: each player in turn says the count words, three times
// over; the word to say is lit, a bar shows how far the player is. The
// companion takes the next voice it hears as that take (it moves on by
// itself); this page only starts, skips, stops and redoes, and shows.
"use strict";
(() => {
  const status = document.getElementById("voices-status");
  const words = document.getElementById("voices-words");
  const bar = document.getElementById("voices-bar");
  const count = document.getElementById("voices-count");
  const list = document.getElementById("voices-players");
  const start = document.getElementById("voices-start");
  const skip = document.getElementById("voices-skip");
  const stop = document.getElementById("voices-stop");
  let view = null;
  // A poll answered late is not drawn over a tap's change (app.js, ``polled``).
  const { load, change } = window.companion.polled(
    "/api/voices", (reply) => { view = reply; draw(); },
    () => { status.textContent = "The table cannot be reached."; });

  function quoted(word) { return "\u201c" + word + "\u201d"; }

  function showBar(player) {
    const held = view.held[player] || 0;
    bar.style.width = (view.needed ? 100 * held / view.needed : 0) + "%";
    count.textContent = player + ": " + held + " of " + view.needed;
  }

  function draw() {
    const prompt = view.prompt;
    words.replaceChildren();
    for (const word of view.words) {
      const li = document.createElement("li");
      li.textContent = word;
      if (prompt && prompt.word === word) li.className = "lit";
      words.append(li);
    }
    list.replaceChildren();
    for (const name of view.players) {
      const li = document.createElement("li");
      const held = view.held[name] || 0;
      const label = document.createElement("span");
      label.textContent = name + ": " + (held >= view.needed ? "done" :
        held ? held + " of " + view.needed : "not yet");
      const redo = document.createElement("button");
      redo.type = "button";
      redo.className = "btn small";
      redo.textContent = "Redo";
      redo.dataset.player = name;
      redo.hidden = !view.hearing;
      redo.setAttribute("aria-label", "Redo " + name + "'s voice");
      redo.addEventListener("click", () => change("/api/voices/redo", { player: name }));
      li.append(label, redo);
      list.append(li);
    }
    const listening = !!prompt;
    skip.hidden = stop.hidden = !listening;
    start.hidden = listening || !view.words.length || !view.players.length;
    start.disabled = !view.hearing;
    if (!view.words.length) {
      status.textContent = "This companion has no microphone: voices cannot be learnt.";
    } else if (!view.players.length) {
      status.textContent = "Start a game first: then each of its players can teach the companion their voice.";
    } else if (!view.hearing && !listening) {
      status.textContent = "The microphone is not working: voices cannot be learnt now.";
    } else if (listening) {
      status.textContent = (prompt.again ? "Not caught. " : "") + prompt.player + ", say " +
        quoted(prompt.word) + (prompt.again ? " again." : ".");
      showBar(prompt.player);
    } else {
      const done = view.players.every((p) => (view.held[p] || 0) >= view.needed);
      status.textContent = done ? "Everyone's voice is learnt." :
        "Press Start: each player in turn says the numbers when they light up.";
      bar.style.width = "0";
      count.textContent = "";
    }
  }

  start.addEventListener("click", () => change("/api/voices/start", {}));
  skip.addEventListener("click", () => change("/api/voices/skip", {}));
  stop.addEventListener("click", () => change("/api/voices/stop", {}));

  load();
  setInterval(() => { if (!document.hidden) load(); }, 500);
})();
