// The in-widget API of Telegram's HTML widgets (Bot API 10.4), as the web chat gives it
// to a widget running in its sandboxed frame (emulator/telegram/widgets.py serves the
// frame with this script first). The widget has no network: it talks to the chat only,
// by postMessage.
//
// Known from the examples (widgets.md, section 5): window.TelegramWidget;
// request(data) -> a promise of {result} (the bot's answerWidgetQuery data); ready().
// GUESS (no source names them): publicData and chatData (the state, strings, "" when
// none), getState() -> {public_data, chat_data}, onStateChange(fn) / offStateChange(fn)
// (fn gets the new state), a request refused or unanswered in 15 s rejects its promise.
"use strict";
(function () {
  const initial = window.__burroWidgetState || {};
  let state = {public_data: initial.public_data || "", chat_data: initial.chat_data || ""};
  const listeners = new Set();
  const pending = new Map();  // request id -> {resolve, reject}
  let nextId = 1;

  function post(message) { window.parent.postMessage({source: "burro-widget", ...message}, "*"); }

  function setState(next) {
    state = {public_data: next.public_data || "", chat_data: next.chat_data || ""};
    for (const listener of [...listeners]) {
      try { listener({...state}); } catch (error) { setTimeout(() => { throw error; }); }
    }
  }

  window.addEventListener("message", (event) => {
    const data = event.data;
    if (event.source !== window.parent || !data || data.source !== "burro-chat") return;
    if (data.type === "state") setState(data);
    else if (data.type === "answer" || data.type === "error") {
      const waiting = pending.get(data.id);
      if (!waiting) return;
      pending.delete(data.id);
      if (data.type === "answer") waiting.resolve({result: data.result});
      else waiting.reject(new Error(data.error));
    }
  });

  const api = {
    get publicData() { return state.public_data; },
    get chatData() { return state.chat_data; },
    getState() { return {...state}; },
    onStateChange(listener) { listeners.add(listener); },
    offStateChange(listener) { listeners.delete(listener); },
    request(data) {
      const id = nextId++;
      return new Promise((resolve, reject) => {
        pending.set(id, {resolve, reject});
        post({type: "request", id, data: String(data)});
      });
    },
    ready() { post({type: "ready"}); },
  };
  Object.defineProperty(window, "TelegramWidget", {value: Object.freeze(api)});

  post({type: "hello"});  // the chat answers with the state now

  // The chat sizes a frame without a fixed height to its content (GUESS: Telegram's
  // apps grow the bubble likewise).
  function tellHeight() { post({type: "size", height: document.documentElement.scrollHeight}); }
  window.addEventListener("load", () => {
    tellHeight();
    if (window.ResizeObserver) new ResizeObserver(tellHeight).observe(document.documentElement);
  });
})();
