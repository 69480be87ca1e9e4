/* The dashboard's shared behaviour (SPEC §6): copy buttons, confirmations, the operator's
   workspace picker and a live feed helper over the Channels websockets. Loaded by every page;
   no inline scripts (strict CSP), pages add their own file for the rest. */
(function () {
  "use strict";

  /* <button data-copy="#id"> copies the text of #id. */
  document.addEventListener("click", function (event) {
    var button = event.target.closest("[data-copy]");
    if (!button) return;
    var source = document.querySelector(button.getAttribute("data-copy"));
    if (!source) return;
    var text = source.value !== undefined && source.tagName !== "CODE" && source.tagName !== "PRE" ? source.value : source.textContent;
    var done = function () {
      var label = button.textContent;
      button.textContent = "Copied";
      button.classList.add("is-copied");
      setTimeout(function () { button.textContent = label; button.classList.remove("is-copied"); }, 1500);
    };
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(text).then(done, function () { fallbackCopy(text); done(); });
    } else {
      fallbackCopy(text);
      done();
    }
  });

  function fallbackCopy(text) {
    var area = document.createElement("textarea");
    area.value = text;
    area.setAttribute("readonly", "");
    area.className = "pam-visually-hidden";
    document.body.appendChild(area);
    area.select();
    try { document.execCommand("copy"); } catch (e) { /* the text stays selectable */ }
    document.body.removeChild(area);
  }

  /* <form data-confirm="Really?"> asks before it submits. */
  document.addEventListener("submit", function (event) {
    var form = event.target;
    var question = form.getAttribute && form.getAttribute("data-confirm");
    if (question && !window.confirm(question)) event.preventDefault();
  }, true);

  /* <form data-autosubmit> submits when one of its selects changes. */
  document.addEventListener("change", function (event) {
    var form = event.target.closest("form[data-autosubmit]");
    if (form) form.submit();
  });

  /* PAM.live("/ws/requests/", onEvent): a websocket to the page's workspace group that
     reconnects with backoff; onEvent gets each JSON event. */
  function live(path, onEvent) {
    var page = document.querySelector("[data-workspace-id]");
    var workspace = page ? page.getAttribute("data-workspace-id") : "";
    var scheme = window.location.protocol === "https:" ? "wss://" : "ws://";
    var url = scheme + window.location.host + path + (workspace ? "?workspace=" + encodeURIComponent(workspace) : "");
    var delay = 1000;
    function connect() {
      var socket = new WebSocket(url);
      socket.onopen = function () { delay = 1000; document.documentElement.setAttribute("data-live", "open"); };
      socket.onmessage = function (message) {
        try { onEvent(JSON.parse(message.data)); } catch (e) { /* ignore a malformed event */ }
      };
      socket.onclose = function (event) {
        document.documentElement.setAttribute("data-live", "closed");
        if (event.code === 4401 || event.code === 4403) return; /* signed out or not allowed */
        setTimeout(connect, delay);
        delay = Math.min(delay * 2, 30000);
      };
    }
    connect();
  }

  window.PAM = { live: live };
})();
