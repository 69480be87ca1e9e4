/* The Setup page (SPEC §6): the drop zone fills the file input (the form works without this
   file); pipeline progress moves the bars live and a finished run refetches the checklist;
   a successful call in the request feed refetches it too, turning the "MCP verified" badge
   green (the badge reflects the agent key's mcp_verified, which the dashboard's own tries
   never set). */
(function () {
  "use strict";

  var zone = document.querySelector("[data-dropzone]");
  if (zone) {
    var input = zone.querySelector("input[type=file]");
    var label = zone.querySelector("[data-dropzone-name]");
    var showName = function () {
      if (input.files && input.files.length) {
        label.textContent = input.files[0].name;
        zone.classList.add("has-file");
      }
    };
    input.addEventListener("change", showName);
    ["dragenter", "dragover"].forEach(function (name) {
      zone.addEventListener(name, function (event) { event.preventDefault(); zone.classList.add("is-dragover"); });
    });
    ["dragleave", "drop"].forEach(function (name) {
      zone.addEventListener(name, function () { zone.classList.remove("is-dragover"); });
    });
    zone.addEventListener("drop", function (event) {
      event.preventDefault();
      if (event.dataTransfer && event.dataTransfer.files.length) {
        input.files = event.dataTransfer.files;
        showName();
      }
    });
  }

  var status = document.getElementById("pam-setup-status");
  var badge = document.getElementById("pam-mcp-verified");
  if (!status || !window.PAM) return;
  var POLL_MS = 5000;
  var pending = false;
  var pollTimer = null;

  function activeRuns() {
    var marker = status.querySelector("[data-active-runs]");
    return marker ? parseInt(marker.getAttribute("data-active-runs"), 10) || 0 : 0;
  }

  function refresh() {
    if (pending) return;
    pending = true;
    fetch(status.getAttribute("data-status-url"), { credentials: "same-origin", headers: { Accept: "application/json" } })
      .then(function (response) { return response.ok ? response.json() : null; })
      .then(function (data) {
        if (!data) return;
        status.innerHTML = data.html;
        if (badge && data.mcp_verified) {
          badge.textContent = "MCP verified";
          badge.className = "pam-badge pam-badge-ok";
          badge.setAttribute("data-verified", "true");
        }
      })
      .catch(function () { /* the next event or poll tries again */ })
      .then(function () { pending = false; schedulePoll(); });
  }

  /* A fallback while runs are active, in case the websocket is down. */
  function schedulePoll() {
    clearTimeout(pollTimer);
    if (activeRuns() > 0) pollTimer = setTimeout(refresh, POLL_MS);
  }

  function onProgress(event) {
    if (event.type !== "pipeline.progress") return;
    var row = status.querySelector('[data-run-id="' + String(event.run_id) + '"]');
    var bar = row && row.querySelector("progress");
    if (!bar || event.status === "completed" || event.status === "failed") {
      refresh();
      return;
    }
    bar.max = Math.max(event.total, 1);
    bar.value = event.done;
    var stage = row.querySelector("[data-run-stage]");
    if (stage) stage.textContent = event.stage + " · " + event.done + " / " + event.total;
    var state = row.querySelector("[data-run-status]");
    if (state) state.textContent = event.status;
  }

  function onRequest(event) {
    if (event.type !== "request.logged" || event.outcome !== "success") return;
    if (badge && badge.getAttribute("data-verified") === "true") return;
    refresh();
  }

  window.PAM.live("/ws/pipeline/", onProgress);
  window.PAM.live("/ws/requests/", onRequest);
  schedulePoll();
})();
