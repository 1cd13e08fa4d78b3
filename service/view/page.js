// The table's view (service/view/page.py inlines it after the drawing script, `Table`).
// Who is looking comes from the address's fragment, which browsers never send: Telegram's
// `tgWebAppData` (read here as telegram-web-app.js would) or a WhatsApp link's `#l=`.
// The server answers with a token the page keeps in memory and sends in a header only.
(function () {
  "use strict";
  var $ = function (id) { return document.getElementById(id); };
  var state = { token: null, lang: "en", words: {}, picture: null, over: false, stopped: false };
  var WAITS = [1000, 2000, 4000, 8000, 15000, 30000]; // ms between reconnections

  function launch() {
    var hash = new URLSearchParams(location.hash.slice(1));
    var query = new URLSearchParams(location.search);
    var given = { lang: navigator.language || "en" };
    if (hash.get("l")) {
      given.link = hash.get("l");
    } else if (hash.get("tgWebAppData")) {
      given.init_data = hash.get("tgWebAppData");
      var user = new URLSearchParams(given.init_data).get("user");
      try { given.lang = JSON.parse(user).language_code || given.lang; } catch (e) { /* none */ }
      given.room = query.get("tgWebAppStartParam") || query.get("startapp") || undefined;
      theme(hash.get("tgWebAppThemeParams"));
      told("web_app_ready");
      told("web_app_expand");
    } else {
      var kept = sessionStorage.getItem("burro.view");
      if (kept) { given = JSON.parse(kept); }
    }
    // The secret leaves the address bar (and the history): a reload uses the tab's copy.
    if (location.hash) {
      sessionStorage.setItem("burro.view", JSON.stringify(given));
      history.replaceState(null, "", location.pathname + location.search);
    }
    return given;
  }

  // The token in the tab's storage: a reload opens the view with it, not with the launch.
  function keep(token) {
    state.token = token;
    sessionStorage.setItem("burro.view", JSON.stringify({ link: token, lang: state.lang }));
  }

  // What telegram-web-app.js's postEvent does: the app is ready (Telegram stops its
  // placeholder) and may take the whole height. Only for a launch by Telegram.
  function told(type) {
    var message = JSON.stringify({ eventType: type, eventData: {} });
    if (window.TelegramWebviewProxy) { window.TelegramWebviewProxy.postEvent(type, "{}"); }
    else if (window.parent !== window) { window.parent.postMessage(message, "https://web.telegram.org"); }
  }

  function theme(raw) {
    try {
      var params = JSON.parse(raw || "{}");
      if (params.bg_color) { document.documentElement.style.setProperty("--bg", params.bg_color); }
      if (params.text_color) { document.documentElement.style.setProperty("--fg", params.text_color); }
    } catch (e) { /* Telegram's colours are a nicety */ }
  }

  function say(text, alert) {
    var status = $("status");
    status.textContent = text || "";
    status.className = alert ? "alert" : "";
  }

  function stop(message) {
    state.stopped = true;
    $("table").setAttribute("aria-busy", "false");
    var end = $("end");
    end.textContent = message;
    end.hidden = false;
  }

  async function post(path, body) {
    var headers = { "content-type": "application/json" };
    if (state.token) { headers.authorization = "Bearer " + state.token; }
    var answer = await fetch(path, { method: "POST", headers: headers, body: JSON.stringify(body),
      cache: "no-store", credentials: "omit" });
    var found = {};
    try { found = await answer.json(); } catch (e) { /* an empty or broken answer */ }
    return { status: answer.status, body: found };
  }

  function draw(picture) {
    state.picture = picture;
    var root = $("table");
    var width = Math.min(root.clientWidth || window.innerWidth, 960);
    Table.draw(root, picture, { width: width, onTap: tap });
    $("title").textContent = picture.t; // which table: the drawing shows no name
    document.title = picture.t ? picture.t + " · Burro" : "Burro";
    root.setAttribute("aria-busy", "false");
    state.over = Boolean(picture.o);
    if (!state.stopped) { // the game's end said above the table, which stays to be read
      $("end").textContent = state.over ? state.words.over : "";
      $("end").hidden = !state.over;
    }
  }

  function mark() {
    var bytes = new Uint8Array(12);
    crypto.getRandomValues(bytes);
    return Array.from(bytes, function (b) { return ("0" + b.toString(16)).slice(-2); }).join("");
  }

  async function tap(text) {
    if (state.stopped) { return; }
    var body = { tap: text, mark: mark(), lang: state.lang };
    for (var attempt = 0; attempt < 3; attempt++) { // the same mark: the desk answers once
      try {
        var answer = await post("/view/press", body);
        if (answer.status === 401) { stop(answer.body.message || state.words.expired); return; }
        if (answer.status === 503) { continue; }
        say(answer.body.popup || answer.body.message || "", answer.body.alert);
        return;
      } catch (e) { /* the network: the same tap again */ }
    }
    say(state.words.busy, true);
  }

  async function listen() {
    for (var failures = 0; !state.stopped; failures++) {
      try {
        var answer = await fetch("/view/events?lang=" + encodeURIComponent(state.lang), {
          headers: { authorization: "Bearer " + state.token }, cache: "no-store", credentials: "omit" });
        if (answer.status === 401 || answer.status === 404) {
          var why = {};
          try { why = await answer.json(); } catch (e) { /* none */ }
          stop(why.message || state.words.expired);
          return;
        }
        if (answer.ok && answer.body) {
          await read(answer.body.getReader(), function () { failures = 0; });
        }
      } catch (e) { /* the stream broke: below, again after a while */ }
      if (state.stopped) { return; }
      say(state.words.lost);
      var wait = WAITS[Math.min(failures, WAITS.length - 1)];
      await new Promise(function (done) { setTimeout(done, wait * (0.75 + Math.random() / 2)); });
    }
  }

  async function read(reader, connected) {
    var decoder = new TextDecoder();
    var buffer = "";
    for (;;) {
      var chunk = await reader.read();
      if (chunk.done) { return; }
      buffer += decoder.decode(chunk.value, { stream: true });
      var end;
      while ((end = buffer.indexOf("\n\n")) >= 0) {
        var block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        var parsed = parse(block);
        if (parsed) { connected(); handle(parsed.name, parsed.data); }
      }
    }
  }

  function parse(block) {
    var name = "message", data = [];
    block.split("\n").forEach(function (line) {
      if (line.indexOf("event: ") === 0) { name = line.slice(7); }
      else if (line.indexOf("data: ") === 0) { data.push(line.slice(6)); }
    });
    return data.length ? { name: name, data: JSON.parse(data.join("\n")) } : null;
  }

  function handle(name, data) {
    if (name === "picture") {
      if (!state.over) { say(state.words.live); }
      draw(data);
    } else if (name === "token") {
      keep(data.token);
    } else if (name === "end") {
      stop(data.message);
    }
  }

  function helpOpen(open) {
    $("help").hidden = !open;
    $("ask").setAttribute("aria-expanded", String(open));
    (open ? $("close") : $("ask")).focus();
  }

  function words(found) {
    state.words = found.words;
    $("ask").setAttribute("aria-label", found.words.help);
    $("close").textContent = found.words.close;
    $("rules-title").textContent = found.words.rules;
    $("tips-title").textContent = found.words.tips;
    $("rules").textContent = found.help.rules;
    var tips = $("tips");
    tips.textContent = "";
    found.help.tips.forEach(function (line) {
      var item = document.createElement("li");
      item.textContent = line;
      tips.appendChild(item);
    });
    document.documentElement.lang = found.lang.replace("_", "-");
  }

  async function start() {
    var given = launch();
    $("ask").addEventListener("click", function () { helpOpen(true); });
    $("close").addEventListener("click", function () { helpOpen(false); });
    document.addEventListener("keydown", function (e) { if (e.key === "Escape") { helpOpen(false); } });
    window.addEventListener("resize", function () { if (state.picture) { draw(state.picture); } });
    var opened = null;
    for (var failures = 0; !opened || opened.status === 503; failures++) {
      if (failures) { // the network or the server away: again, after a while
        await new Promise(function (done) { setTimeout(done, WAITS[Math.min(failures, WAITS.length) - 1]); });
      }
      try { opened = await post("/view/open", given); } catch (e) { opened = null; }
    }
    if (opened.status !== 200) { stop(opened.body.message || "…"); return; }
    var found = opened.body;
    state.lang = found.lang;
    keep(found.token);
    words(found);
    draw(found.picture);
    $("ask").hidden = false;
    listen();
  }

  start();
})();
