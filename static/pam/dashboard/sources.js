/* The Sources page (SPEC §7): follow `pipeline.progress` events of the workspace's runs over
   /ws/pipeline/ — update each run's <progress>, stage and status — and refetch a source's card
   (admin:pam-source-card) when a run ends or a run not on the page appears. */
(function () {
  "use strict";

  var FINISHED = { completed: true, failed: true };
  var refreshing = {};

  function card(sourceId) {
    return document.querySelector('.pam-source[data-source-id="' + sourceId + '"]');
  }

  function refresh(sourceId) {
    var current = card(sourceId);
    if (!current || refreshing[sourceId]) return;
    refreshing[sourceId] = true;
    current.classList.add("is-updating");
    fetch(current.getAttribute("data-card-url"), { credentials: "same-origin", headers: { "X-Requested-With": "fetch" } })
      .then(function (response) {
        if (response.status === 404) { current.remove(); return null; } /* deleted */
        return response.ok ? response.text() : null;
      })
      .then(function (html) {
        if (html === null || html === undefined) return;
        var holder = document.createElement("div");
        holder.innerHTML = html.trim();
        var fresh = holder.querySelector(".pam-source");
        if (fresh) current.replaceWith(fresh);
      })
      .catch(function () { /* the next event tries again */ })
      .then(function () {
        refreshing[sourceId] = false;
        var still = card(sourceId);
        if (still) still.classList.remove("is-updating");
      });
  }

  function update(event) {
    if (event.type !== "pipeline.progress") return;
    var row = document.querySelector('tr[data-run-id="' + event.run_id + '"]');
    if (!row) { refresh(event.source_id); return; }
    var bar = row.querySelector("[data-run-progress]");
    if (bar && event.total) { bar.max = event.total; bar.value = event.done; bar.textContent = event.done + "/" + event.total; }
    var count = row.querySelector("[data-run-count]");
    if (count) count.textContent = (event.done || 0) + "/" + (event.total || 0);
    var stage = row.querySelector("[data-run-stage]");
    if (stage && event.stage) stage.textContent = event.stage;
    var status = row.querySelector("[data-run-status]");
    if (status && event.status) {
      status.textContent = event.status;
      status.className = "pam-badge " + (FINISHED[event.status] ? (event.status === "completed" ? "pam-badge-ok" : "pam-badge-bad") : "pam-badge-warn");
    }
    if (FINISHED[event.status]) refresh(event.source_id);
  }

  if (document.querySelector("[data-testid=sources]") && window.PAM) window.PAM.live("/ws/pipeline/", update);
})();
