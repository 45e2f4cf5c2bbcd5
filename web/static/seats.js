// The seat setup page: the table as a circle with each player where the
// companion hears them; drag a name to move a seat; "Find the seats" asks
// each player in turn to speak. Angles are degrees counter-clockwise from
// the array's x axis (to the right on the page), as the companion stores them.
"use strict";
(() => {
  const svg = document.getElementById("seats-table");
  const group = document.getElementById("seats-players");
  const status = document.getElementById("seats-status");
  const missing = document.getElementById("seats-missing");
  const find = document.getElementById("seats-find");
  const RADIUS = 110;
  const NS = "http://www.w3.org/2000/svg";
  let view = null;
  let drawn = null;  // the view last drawn, as JSON: a poll that changes nothing redraws nothing
  let dragging = null;
  let finding = false;

  // Errors are shown by the page's own poster (app.js), which asks for the
  // PIN; a poll answered late is not drawn over a drag (``polled``).
  const { load, change } = window.companion.polled(
    "/api/seats", (reply) => { view = reply; draw(); },
    () => { status.textContent = "The table cannot be reached."; });

  function point(deg) {
    const a = deg * Math.PI / 180;
    return [RADIUS * Math.cos(a), -RADIUS * Math.sin(a)];
  }

  function draw() {
    if (dragging) return;
    // Redrawing an unchanged view each second would replace the seat a
    // finger is about to press.
    const key = JSON.stringify(view) + finding;
    if (key === drawn) return;
    drawn = key;
    group.replaceChildren();
    missing.replaceChildren();
    if (!view.array) {
      status.textContent = "This companion has no microphone array: seats are not needed.";
      find.hidden = true;
      return;
    }
    if (!view.players.length) {
      status.textContent = "Start a game first: then find where its players sit.";
      find.hidden = true;
      return;
    }
    find.hidden = false;
    if (view.listening) {
      status.textContent = view.listening + ": say your name, or \u201chere\u201d.";
    } else if (!finding) {
      status.textContent = "Each player is shown where the companion hears them.";
    }
    for (const name of view.players) {
      const deg = view.seats[name];
      if (deg === null || deg === undefined) {
        const li = document.createElement("li");
        li.textContent = name + ": not heard yet";
        missing.append(li);
        continue;
      }
      const [x, y] = point(deg);
      const g = document.createElementNS(NS, "g");
      g.setAttribute("class", "seat" + (name === view.listening ? " listening" : ""));
      g.setAttribute("data-player", name);
      g.setAttribute("transform", `translate(${x} ${y})`);
      const dot = document.createElementNS(NS, "circle");
      dot.setAttribute("r", "22");
      const label = document.createElementNS(NS, "text");
      label.setAttribute("text-anchor", "middle");
      label.setAttribute("dy", "0.35em");
      label.textContent = name;
      g.append(dot, label);
      g.addEventListener("pointerdown", (ev) => startDrag(ev, g, name));
      group.append(g);
    }
  }

  function angleAt(ev) {
    const box = svg.getBoundingClientRect();
    const x = (ev.clientX - box.left) / box.width * 320 - 160;
    const y = (ev.clientY - box.top) / box.height * 320 - 160;
    const deg = Math.atan2(-y, x) * 180 / Math.PI;
    return (deg + 360) % 360;
  }

  function startDrag(ev, g, name) {
    ev.preventDefault();
    dragging = { g, name, deg: null };
    g.setPointerCapture(ev.pointerId);
    g.addEventListener("pointermove", moveDrag);
    g.addEventListener("pointerup", endDrag, { once: true });
  }

  function moveDrag(ev) {
    if (!dragging) return;
    dragging.deg = angleAt(ev);
    const [x, y] = point(dragging.deg);
    dragging.g.setAttribute("transform", `translate(${x} ${y})`);
  }

  async function endDrag(ev) {
    const d = dragging;
    d.g.removeEventListener("pointermove", moveDrag);
    dragging = null;
    drawn = null;  // the dragged seat is drawn from the view again, whatever the reply
    if (d.deg === null) return;
    await change("/api/seats", { player: d.name, azimuth: Math.round(d.deg * 10) / 10 });
  }

  find.addEventListener("click", async () => {
    finding = true;
    find.disabled = true;
    for (const name of view.players) {
      if (!await change("/api/seats/listen", { player: name })) break;
      while (view.listening === name) {
        await new Promise((ok) => setTimeout(ok, 300));
        await load();
      }
    }
    finding = false;
    find.disabled = false;
    status.textContent = "Done. Drag a name if a seat is not where that player sits.";
  });

  load();
  setInterval(load, 1000);
})();
