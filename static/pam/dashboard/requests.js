/* The Request Log's live feed (SPEC §6): each `request.logged` event of the workspace's
   group puts the new call at the top of the list. The row is rendered by the server
   (requests/<id>/row/), never built from the event here. When filters or an older page are
   shown, a new call may not belong there: the page only says how many arrived. */
(function () {
  "use strict";
  var rows = document.querySelector("[data-live-rows]");
  if (!rows || !window.PAM) return;
  var notice = document.querySelector("[data-new-calls]");
  var count = document.querySelector("[data-new-count]");
  var arrived = 0;

  function prepend(requestId) {
    if (rows.querySelector('[data-request-id="' + requestId + '"]')) return;
    var url = rows.getAttribute("data-row-base") + encodeURIComponent(requestId) + "/row/";
    fetch(url, { credentials: "same-origin", headers: { Accept: "text/html" } })
      .then(function (response) { return response.ok && !response.redirected ? response.text() : ""; }) /* signed out: a login page */
      .then(function (html) {
        if (!html || rows.querySelector('[data-request-id="' + requestId + '"]')) return;
        var holder = document.createElement("tbody");
        holder.innerHTML = html.trim();
        var row = holder.firstElementChild;
        if (!row) return;
        row.classList.add("is-new");
        rows.insertBefore(row, rows.firstElementChild);
        var empty = document.querySelector("[data-empty]");
        if (empty) empty.hidden = true;
      });
  }

  window.PAM.live("/ws/requests/", function (event) {
    if (event.type !== "request.logged" || !event.request_id) return;
    if (rows.getAttribute("data-mode") === "prepend") {
      prepend(event.request_id);
    } else if (notice && count) {
      arrived += 1;
      count.textContent = String(arrived);
      notice.hidden = false;
    }
  });
})();
