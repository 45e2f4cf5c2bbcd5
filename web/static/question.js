// The accusation's question (panels/nasty7_question.html): when it appears
// on the table page, bring it into view and buzz the phone once, so every
// player sees the table is waiting for the accused card. The buttons
// themselves post through app.js's data-event handler.
"use strict";
(() => {
  const board = document.getElementById("board");
  if (!board) return;
  let asked = "";
  function check() {
    const box = document.getElementById("card-question");
    const now = box ? box.querySelector("h2").textContent : "";
    if (now && now !== asked) {
      box.scrollIntoView({ block: "start", behavior: "smooth" });
      if (navigator.vibrate) navigator.vibrate(200);
    }
    asked = now;
  }
  new MutationObserver(check).observe(board, { childList: true, subtree: true });
  check();
})();
