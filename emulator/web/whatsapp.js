// The web chat's WhatsApp side: the local WhatsApp's users, each with their one chat with
// the business, shown as a phone shows it. State comes from the WhatsApp control API
// (/_emulator/whatsapp/users, /messages, /chats, /clock); live changes arrive as
// Server-Sent Events from /_emulator/whatsapp/events; what the user does (write, tap a
// reply button, choose a list row, open the chat) goes to the same control API.
// Loaded before app.js, whose helpers ($, avatar, colorFor, escapeHtml, toast,
// renderUsers, app) it uses once the page runs.
"use strict";

const WA_API = "/_emulator/whatsapp";
const WA_WINDOW = 24 * 3600; // the customer service window, seconds
const WA_TICKS = {
  accepted: ["🕓", "accepted by the Cloud API, not sent yet"],
  sent: ["✓", "sent, not delivered yet (the user is offline?)"],
  delivered: ["✓✓", "delivered, not read yet"],
  read: ["✓✓", "read"],
  received: ["✓✓", "delivered to the business, not read by it yet"],
};

const wa = {
  users: [],            // /users: name, user_id, wa_id, username, language, online, last_inbound
  user: null,           // the name of the WhatsApp user we are playing as; null: the Telegram side
  chats: new Map(),     // user name -> Map(wamid -> message view), merged by rev
  loaded: new Set(),    // user names whose whole chat was read once
  unread: new Map(),    // user name -> delivered messages they have not read
  offset: 0,            // the emulator's clock minus this browser's, in seconds
  opening: false,       // a POST /open in flight
  reopen: false,        // another one wanted after it
  chatsTimer: null,
  windowsOpen: false,   // the phone's list of 24-hour windows shown
};

async function waCall(path, body) {
  const options = body === undefined ? {} : {
    method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify(body),
  };
  const response = await fetch(WA_API + path, options);
  const data = await response.json();
  if (!data.ok) throw new Error(data.description || "request failed");
  return data.result;
}

function waActive() { return wa.user !== null; }
function waNow() { return Date.now() / 1000 + wa.offset; }
function waFind(ref) {
  const wanted = String(ref || "").toLowerCase();
  return wa.users.find((u) => [u.name, u.user_id, u.wa_id, u.username]
    .some((n) => n && n.toLowerCase() === wanted)) || null;
}
function waMe() { return waActive() ? waFind(wa.user) : null; }
function waSeed(user) { return Number(user.user_id.replace(/\D/g, "").slice(-6)); }
function waChat(name) {
  if (!wa.chats.has(name)) wa.chats.set(name, new Map());
  return wa.chats.get(name);
}

// Keep a view unless an as new one (a higher or equal rev) is kept already; whether it changed.
function waStore(view) {
  const chat = waChat(view.user);
  const known = chat.get(view.id);
  if (known && known.rev >= view.rev) return false;
  chat.set(view.id, view);
  if (view.direction === "in") {
    const user = waFind(view.user);
    if (user && (user.last_inbound === null || user.last_inbound < view.time)) user.last_inbound = view.time;
  }
  return true;
}

// ----- the time and the 24-hour windows ---------------------------------------------

function waTime(seconds) {
  return new Date(seconds * 1000).toLocaleTimeString([], {hour: "2-digit", minute: "2-digit"});
}

// A duration: minutes, hours (up to two days: a window is 24 h) or days.
function waSpan(seconds) {
  const minutes = Math.max(0, Math.round(seconds / 60));
  const [h, m] = [Math.floor(minutes / 60), minutes % 60];
  if (h >= 48) return h % 24 ? `${Math.floor(h / 24)} d ${h % 24} h` : `${h / 24} d`;
  if (h) return m ? `${h} h ${m} min` : `${h} h`;
  return `${m} min`;
}

// {open, text}: whether the business may write free-form to the user now.
function waWindow(user) {
  if (user.last_inbound === null || user.last_inbound === undefined) {
    return {open: false, text: "closed: never wrote", short: "never wrote"};
  }
  const left = user.last_inbound + WA_WINDOW - waNow();
  if (left > 0) return {open: true, text: `open · ${waSpan(left)} left`};
  return {open: false, text: -left < 60 ? "closed just now" : `closed ${waSpan(-left)} ago`};
}

function waRenderClock() {
  const now = waNow();
  const shown = $("wa-now");
  const ahead = wa.offset >= 60 ? ` · +${waSpan(wa.offset)}` : "";
  const date = document.createElement("span");
  date.className = "date";
  date.textContent = new Date(now * 1000).toLocaleDateString([], {day: "numeric", month: "short"}) + ", ";
  shown.replaceChildren(
    new Date(now * 1000).toLocaleDateString([], {weekday: "short"}) + " ", date, waTime(now), ahead);
  shown.dataset.now = String(Math.floor(now));
  shown.title = ahead ? `The emulator's clock, ${waSpan(wa.offset)} ahead of real time` : "The emulator's clock";
  const list = $("wa-windows");
  list.replaceChildren();
  for (const user of wa.users) {
    const state = waWindow(user);
    const item = document.createElement("li");
    item.dataset.user = user.name;
    item.dataset.window = state.open ? "open" : "closed";
    item.classList.toggle("current", user.name === wa.user);
    const dot = document.createElement("span");
    dot.className = "wa-dot";
    const name = document.createElement("span");
    name.className = "who";
    name.textContent = user.name + (user.online ? "" : " (offline)");
    const when = document.createElement("span");
    when.className = "when";
    when.textContent = state.short || state.text;
    item.append(dot, name, when);
    item.title = `${user.name}'s 24-hour window (from their last message or tap, on the emulator's clock)`;
    item.onclick = () => waOpen(user.name);
    list.append(item);
  }
  waKeepBottom(() => list.classList.toggle("open", wa.windowsOpen));
  $("wa-windows-button").setAttribute("aria-expanded", String(wa.windowsOpen));
  if (waActive()) waRenderHeader();
}

async function waAdvance(seconds) {
  try {
    const clock = await waCall("/advance", {seconds});
    wa.offset = clock.now - Date.now() / 1000;
    waRenderClock();
  } catch (error) { toast(error.message); }
}

// ----- loading -----------------------------------------------------------------------

async function waLoadUsers() {
  const [users, clock] = await Promise.all([waCall("/users"), waCall("/clock")]);
  wa.offset = clock.now - Date.now() / 1000;
  for (const user of users) {  // a newer inbound message seen by event is kept
    const known = waFind(user.name);
    if (known && known.last_inbound !== null && (user.last_inbound === null || known.last_inbound > user.last_inbound)) {
      user.last_inbound = known.last_inbound;
    }
  }
  wa.users = users;
  if (wa.user !== null && !waFind(wa.user)) waClose();
  waRenderClock();
  if (app.state) renderUsers();
  if (waActive()) { waRenderSide(); waMarkRead(); }  // back online: what came is read
}

async function waLoadChats() {
  const chats = await waCall("/chats");
  for (const chat of chats) {
    const name = chat.user.name;
    if (chat.last) waStore(chat.last);
    if (name === wa.user) wa.unread.delete(name); else wa.unread.set(name, chat.unread);
  }
  if (app.state) renderUsers();
  if (waActive()) waRenderSide();
}

function waLaterChats() {
  clearTimeout(wa.chatsTimer);
  wa.chatsTimer = setTimeout(() => waLoadChats().catch(() => {}), 300);
}

async function waLoadMessages(name) {
  const result = await waCall(`/messages?user=${encodeURIComponent(name)}`);
  for (const view of result.messages) waStore(view);
  wa.loaded.add(name);
}

async function waStart() {
  waWire();
  waConnect();
  try {
    await waLoadUsers();
    await waLoadChats();
  } catch (error) { toast(`WhatsApp: ${error.message}`); }  // the Telegram side works without
}

// ----- switching to and from a WhatsApp user -----------------------------------------

async function waOpen(name) {
  const user = waFind(name);
  if (!user) { toast(`No WhatsApp user ${name}`); return; }
  wa.user = user.name;
  wa.unread.delete(user.name);
  document.body.classList.add("wa-mode");
  $("chat").hidden = true;
  $("chats").hidden = true;
  $("wa-chat").hidden = false;
  $("wa-side").hidden = false;
  waCloseSheet();
  renderUsers();
  const tab = document.querySelector(`#users .wa-tab[aria-selected="true"]`);
  if (tab) tab.scrollIntoView({block: "nearest", inline: "nearest"});  // the phone's strip
  waRenderSide();
  waRenderClock();
  waRenderMessages();
  history.replaceState(null, "", `?wa=${encodeURIComponent(user.name)}`);
  try {
    await waLoadMessages(user.name);
  } catch (error) { toast(error.message); return; }
  if (wa.user !== user.name) return;  // another user was chosen meanwhile
  waRenderMessages();
  waMarkRead();
}

function waClose() {
  if (!waActive()) return;
  wa.user = null;
  waCloseSheet();
  document.body.classList.remove("wa-mode");
  $("chat").hidden = false;
  $("chats").hidden = false;
  $("wa-chat").hidden = true;
  $("wa-side").hidden = true;
}

// The WhatsApp users' tabs in the user picker (app.js's renderUsers calls it).
function waTabs(box) {
  if (wa.users.length) {
    const divider = document.createElement("span");
    divider.className = "wa-divider";
    divider.textContent = "On WhatsApp";
    box.append(divider);
  }
  for (const user of wa.users) {
    const tab = document.createElement("button");
    tab.className = "user-tab wa-tab";
    tab.type = "button";
    tab.setAttribute("role", "tab");
    tab.dataset.user = user.name;
    tab.dataset.wa = "true";
    tab.setAttribute("aria-selected", String(user.name === wa.user));
    tab.title = `${user.name} on WhatsApp (${user.language}, ${user.wa_id ? "+" + user.wa_id : "@" + user.username})`;
    const badge = document.createElement("span");
    badge.className = "wa-badge";
    badge.textContent = "WA";
    tab.append(avatar(document.createElement("span"), user.name, waSeed(user)), user.name, badge);
    const unread = wa.unread.get(user.name);
    if (unread && user.name !== wa.user) tab.append(unreadBadge(unread, unread));
    tab.onclick = () => waOpen(user.name);
    box.append(tab);
  }
}

// The sidebar's one chat (the business) and its preview.
function waRenderSide() {
  const nav = $("wa-chats");
  nav.replaceChildren();
  const item = document.createElement("button");
  item.type = "button";
  item.className = "chat-item active";
  item.dataset.chat = "Burro";
  const meta = document.createElement("div");
  meta.className = "meta";
  const name = document.createElement("div");
  name.className = "name";
  name.textContent = "Burro";
  const preview = document.createElement("div");
  preview.className = "preview";
  const last = waSorted(wa.user).filter((v) => v.visible && v.type !== "reaction").pop();
  preview.textContent = last ? (last.direction === "in" ? "You: " : "") + waPreview(last) : "WhatsApp Business";
  meta.append(name, preview);
  const picture = document.createElement("span");
  picture.className = "avatar wa-business";
  picture.textContent = "B";
  item.append(picture, meta);
  if (last) {
    const time = document.createElement("span");
    time.className = "wa-when";
    time.textContent = waTime(last.time);
    item.append(time);
  }
  item.onclick = () => waOpen(wa.user);
  nav.append(item);
}

function waRenderHeader() {
  const user = waMe();
  if (!user) return;
  const state = waWindow(user);
  const subtitle = $("wa-subtitle");
  subtitle.dataset.window = state.open ? "open" : "closed";
  subtitle.textContent = `window ${state.text}`;
  subtitle.title = `${user.name}'s 24-hour window: ` + (state.open
    ? "the business may write anything until it closes"
    : "only templates reach them until they write again");
  const online = $("wa-online");
  online.textContent = user.online ? "● online" : "○ offline";
  online.classList.toggle("offline", !user.online);
  online.title = user.online ? `${user.name} goes offline: messages wait` : `${user.name} comes back online`;
  $("wa-input").placeholder = user.online ? "Message" : `${user.name} is offline`;
  $("wa-input").disabled = !user.online;
  $("wa-send").disabled = !user.online;
}

// ----- rendering messages ------------------------------------------------------------

function waSorted(name) {
  return name === null ? [] : [...waChat(name).values()].sort((a, b) => a.seq - b.seq);
}

function waPreview(view) {
  if (view.text) return view.text.split("\n")[0];
  if (view.document) return `📄 ${view.document.filename || "document"}`;
  return view.type;
}

// WhatsApp's own formatting: *bold*, _italic_, ~strikethrough~, ```monospace```, `code`.
function waFormat(text) {
  let html = escapeHtml(text);
  const mark = (sign, tag) => {
    const s = sign.replace(/[*~]/g, "\\$&");
    const pattern = new RegExp(`(^|[\\s(¡¿])${s}(?=\\S)([^\\n]*?\\S)${s}(?=$|[\\s).,!?:;])`, "g");
    html = html.replace(pattern, `$1<${tag}>$2</${tag}>`);
  };
  html = html.replace(/```([\s\S]+?)```/g, "<code>$1</code>");
  mark("*", "b");
  mark("_", "i");
  mark("~", "s");
  html = html.replace(/(https?:\/\/[^\s<]+)/g, '<a href="$1" target="_blank" rel="noopener">$1</a>');
  return html;
}

function waDay(seconds) { return new Date(seconds * 1000).toDateString(); }

function waDayChip(seconds) {
  const chip = document.createElement("div");
  chip.className = "wa-day";
  const today = waDay(waNow());
  const yesterday = waDay(waNow() - 86400);
  const day = waDay(seconds);
  chip.textContent = day === today ? "Today" : day === yesterday ? "Yesterday"
    : new Date(seconds * 1000).toLocaleDateString([], {weekday: "long", day: "numeric", month: "long"});
  chip.dataset.day = day;
  return chip;
}

// Run `change` (which may resize the chat); a chat scrolled to its end stays at its end.
function waKeepBottom(change) {
  const box = $("wa-messages");
  const bottom = box.scrollHeight - box.scrollTop - box.clientHeight < 40;
  change();
  if (bottom) box.scrollTop = box.scrollHeight;
}

function waRenderMessages() {
  const box = $("wa-messages");
  box.replaceChildren();
  const list = waSorted(wa.user).filter((v) => v.type !== "reaction");
  if (!list.length) {
    const empty = document.createElement("div");
    empty.className = "wa-empty";
    empty.textContent = wa.loaded.has(wa.user)
      ? "No messages yet. Say hello to Burro: a business can only answer (or send a template)."
      : "Loading…";
    box.append(empty);
    return;
  }
  let day = null;
  for (const view of list) {
    if (waDay(view.time) !== day) { day = waDay(view.time); box.append(waDayChip(view.time)); }
    box.append(waRenderMessage(view));
  }
  box.scrollTop = box.scrollHeight;
}

function waTicks(view) {
  const ticks = document.createElement("span");
  ticks.className = `wa-ticks ${view.status}`;
  if (view.status === "failed") {
    const codes = view.errors.map((e) => e.code).join(", ");
    ticks.textContent = "⚠";
    ticks.dataset.codes = codes;
    const said = view.errors.map((e) => `${e.code} ${e.title}${e.error_data && e.error_data.details ? `: ${e.error_data.details}` : ""}`);
    ticks.title = `failed: ${said.join("; ")}`;
    ticks.setAttribute("role", "button");
    ticks.tabIndex = 0;
    ticks.onclick = () => toast(`Not delivered: ${said.join("; ")}`);
    const code = document.createElement("span");
    code.className = "wa-code";
    code.textContent = codes;
    ticks.append(code);
    return ticks;
  }
  const [shown, said] = WA_TICKS[view.status] || ["", view.status];
  ticks.textContent = shown;
  ticks.title = said;
  return ticks;
}

function waRenderMessage(view) {
  const mine = view.direction === "in";
  const el = document.createElement("div");
  el.className = `wa-msg ${mine ? "mine" : "theirs"}`;
  if (!view.visible) el.classList.add("undelivered");
  el.dataset.wamid = view.id;
  el.dataset.seq = String(view.seq);
  el.dataset.status = view.status;
  el.dataset.type = view.type;
  if (view.list || (view.buttons && view.buttons.length)) el.classList.add("asks");
  const bubble = document.createElement("div");
  bubble.className = "wa-bubble";
  if (view.type === "template") {
    const tag = document.createElement("div");
    tag.className = "wa-tag";
    tag.textContent = `template · ${view.content.template.name}`;
    bubble.append(tag);
  }
  const quoted = view.context_id ? waChat(view.user).get(view.context_id) : null;
  if (quoted) bubble.append(waQuote(quoted));
  if (view.header) {
    const head = document.createElement("div");
    head.className = "wa-head";
    head.textContent = view.header;
    bubble.append(head);
  }
  if (view.document) {
    const doc = document.createElement(view.document.link ? "a" : "div");
    doc.className = "wa-doc";
    doc.textContent = `📄 ${view.document.filename || view.document.link || "document"}`;
    if (view.document.link) {
      doc.href = view.document.link;
      doc.target = "_blank";
      doc.rel = "noopener";
    } else {
      doc.title = `media ${view.document.id} (the business's upload)`;
    }
    bubble.append(doc);
  }
  const text = document.createElement("div");
  text.className = "wa-text";
  text.innerHTML = waFormat(view.text || "");
  bubble.append(text);
  if (view.footer) {
    const foot = document.createElement("div");
    foot.className = "wa-foot";
    foot.textContent = view.footer;
    bubble.append(foot);
  }
  const meta = document.createElement("div");
  meta.className = "wa-meta";
  const time = document.createElement("span");
  time.className = "wa-time";
  time.textContent = waTime(view.time);
  time.title = new Date(view.time * 1000).toLocaleString() + " (the emulator's clock)";
  meta.append(time, waTicks(view));
  bubble.append(meta);
  const reaction = waReaction(view);
  if (reaction) {
    const badge = document.createElement("span");
    badge.className = "wa-reaction";
    badge.textContent = reaction;
    bubble.append(badge);
    el.classList.add("reacted");
  }
  if (view.list) {
    const open = document.createElement("button");
    open.type = "button";
    open.className = "wa-list-open";
    open.textContent = `☰ ${view.list.button}`;
    open.disabled = !view.visible;
    open.onclick = () => waOpenSheet(view);
    bubble.append(open);
  }
  if (view.cta) bubble.append(waCtaButton(view));
  el.append(bubble);
  if (view.buttons && view.buttons.length) {
    const replies = document.createElement("div");
    replies.className = "wa-replies";
    for (const button of view.buttons) {
      const b = document.createElement("button");
      b.type = "button";
      b.className = "wa-reply";
      b.dataset.id = button.id;
      b.textContent = button.title;
      b.disabled = !view.visible;
      if (!view.visible) b.title = "Not delivered to this user";
      b.onclick = () => waTap(view, button, b);
      replies.append(b);
    }
    el.append(replies);
  }
  return el;
}

// A call-to-action URL button: its link opens at a phone's size, as a WhatsApp phone
// opens it in its in-app browser (and as the Telegram side opens a Mini App).
function waCtaButton(view) {
  const open = document.createElement("button");
  open.type = "button";
  open.className = "wa-list-open wa-cta";
  open.textContent = `↗ ${view.cta.display_text}`;
  open.title = view.cta.url;
  open.disabled = !view.visible;
  open.onclick = () => window.open(view.cta.url, "_blank", "popup=yes,width=390,height=780,noopener");
  return open;
}

function waQuote(quoted) {
  const quote = document.createElement("div");
  quote.className = "wa-quote" + (quoted.direction === "in" ? " mine" : "");
  const who = document.createElement("div");
  who.className = "who";
  who.textContent = quoted.direction === "in" ? "You" : "Burro";
  const what = document.createElement("div");
  what.className = "what";
  what.textContent = waPreview(quoted);
  quote.append(who, what);
  quote.title = "Show the message it answers";
  quote.onclick = () => {
    const target = $("wa-messages").querySelector(`[data-wamid="${CSS.escape(quoted.id)}"]`);
    if (!target) return;
    target.scrollIntoView({block: "center", behavior: "smooth"});
    target.classList.add("flash");
    setTimeout(() => target.classList.remove("flash"), 1200);
  };
  return quote;
}

// The newest reaction the business put on a message (an empty emoji takes it back).
function waReaction(view) {
  let found = null;
  for (const other of waChat(view.user).values()) {
    if (other.type === "reaction" && other.reaction_to === view.id && other.visible
        && (!found || found.seq < other.seq)) found = other;
  }
  return found ? found.text : "";
}

// ----- what the user does ------------------------------------------------------------

async function waSend(text) {
  if (!waActive() || !text.trim()) return;
  try { await waCall("/send", {user: wa.user, text}); } catch (error) { toast(error.message); }
}

async function waTap(view, button, element) {
  element.classList.add("pressed");
  try {
    await waCall("/tap", {user: view.user, message_id: view.id, title: button.id});
  } catch (error) { toast(error.message); } finally { element.classList.remove("pressed"); }
}

async function waChoose(view, row, element) {
  element.classList.add("pressed");
  try {
    await waCall("/choose", {user: view.user, message_id: view.id, title: row.id});
    waCloseSheet();
  } catch (error) { toast(error.message); } finally { element.classList.remove("pressed"); }
}

// The list's sheet: its sections and rows; choosing a row sends it.
function waOpenSheet(view) {
  $("wa-sheet-title").textContent = view.list.button;
  const box = $("wa-sheet-list");
  box.replaceChildren();
  for (const section of view.list.sections) {
    if (section.title) {
      const heading = document.createElement("div");
      heading.className = "wa-section";
      heading.textContent = section.title;
      box.append(heading);
    }
    for (const row of section.rows) {
      const b = document.createElement("button");
      b.type = "button";
      b.className = "wa-row";
      b.dataset.id = row.id;
      const what = document.createElement("span");
      what.className = "what";
      const title = document.createElement("span");
      title.className = "title";
      title.textContent = row.title;
      what.append(title);
      if (row.description) {
        const description = document.createElement("span");
        description.className = "description";
        description.textContent = row.description;
        what.append(description);
      }
      const radio = document.createElement("span");
      radio.className = "wa-radio";
      b.append(what, radio);
      b.onclick = () => waChoose(view, row, b);
      box.append(b);
    }
  }
  const sheet = $("wa-sheet-backdrop");
  sheet.dataset.wamid = view.id;
  sheet.hidden = false;
  box.scrollTop = 0;
}

function waCloseSheet() {
  const sheet = $("wa-sheet-backdrop");
  sheet.hidden = true;
  delete sheet.dataset.wamid;
}

// The user looks at the chat: what was delivered becomes read (status webhooks).
async function waMarkRead() {
  const user = waMe();
  if (!user || !user.online || document.hidden) return;
  const unread = [...waChat(user.name).values()].some((v) => v.direction === "out" && v.status === "delivered");
  if (!unread) return;
  if (wa.opening) { wa.reopen = true; return; }
  wa.opening = true;
  try { await waCall("/open", {user: user.name}); } catch (error) { /* offline meanwhile */ }
  wa.opening = false;
  if (wa.reopen) { wa.reopen = false; waMarkRead(); }
}

async function waSetOnline() {
  const user = waMe();
  if (!user) return;
  try { await waCall("/online", {user: user.name, online: !user.online}); } catch (error) { toast(error.message); }
}

// ----- live events -------------------------------------------------------------------

function waOnMessage(view) {
  if (!waStore(view)) return;
  if (view.user !== wa.user) {
    if (view.direction === "in") waRenderClock();
    waLaterChats();
    return;
  }
  const box = $("wa-messages");
  if (view.type === "reaction") {
    const target = waChat(view.user).get(view.reaction_to);
    if (target) waReplace(target);
  } else if (!waReplace(view)) {
    const shown = box.querySelectorAll(".wa-msg");
    const last = shown.length ? shown[shown.length - 1] : null;
    if (!last || Number(last.dataset.seq) < view.seq) {
      const bottom = box.scrollHeight - box.scrollTop - box.clientHeight < 120;
      if (!last) box.replaceChildren();
      const lastView = last ? waChat(view.user).get(last.dataset.wamid) : null;
      if (!lastView || waDay(lastView.time) !== waDay(view.time)) box.append(waDayChip(view.time));
      box.append(waRenderMessage(view));
      if (bottom || view.direction === "in") box.scrollTop = box.scrollHeight;
    } else {
      waRenderMessages();
    }
    // a message quoting this one may be on the page already (events can come late)
    for (const other of waChat(view.user).values()) {
      if (other.context_id === view.id) waReplace(other);
    }
  }
  if (view.direction === "in") waRenderClock();
  if (view.direction === "out" && view.status === "delivered") waMarkRead();
  waRenderSide();
}

// Redraw a message shown on the page; whether it was there.
function waReplace(view) {
  const existing = $("wa-messages").querySelector(`[data-wamid="${CSS.escape(view.id)}"]`);
  if (!existing) return false;
  existing.replaceWith(waRenderMessage(view));
  return true;
}

function waConnect() {
  const source = new EventSource(`${WA_API}/events`);
  let first = true;
  source.onopen = async () => {
    document.body.dataset.waLive = "true";
    if (first) { first = false; return; }
    // back after a break: what changed meanwhile
    try {
      await waLoadUsers();
      await waLoadChats();
      if (waActive()) { await waLoadMessages(wa.user); waRenderMessages(); waMarkRead(); }
    } catch (error) { /* the next reconnection tries again */ }
  };
  source.onerror = () => { document.body.dataset.waLive = "false"; };
  source.onmessage = (message) => {
    const event = JSON.parse(message.data);
    if (event.type === "message") waOnMessage(event.message);
    else if (event.type === "users") waLoadUsers().catch(() => {});
    else if (event.type === "clock") {
      wa.offset = event.now - Date.now() / 1000;
      waRenderClock();
      if (waActive()) waRenderMessages();  // "Today" is another day now
    }
  };
}

// ----- wiring ------------------------------------------------------------------------

function waWire() {
  $("wa-form").onsubmit = async (event) => {
    event.preventDefault();
    const text = $("wa-input").value;
    $("wa-input").value = "";
    await waSend(text);
  };
  $("wa-hour").onclick = () => waAdvance(3600);
  $("wa-day").onclick = () => waAdvance(24 * 3600);
  $("wa-windows-button").onclick = () => { wa.windowsOpen = !wa.windowsOpen; waRenderClock(); };
  $("wa-online").onclick = waSetOnline;
  $("wa-sheet-close").onclick = waCloseSheet;
  $("wa-sheet-backdrop").onclick = (event) => { if (event.target === $("wa-sheet-backdrop")) waCloseSheet(); };
  document.addEventListener("keydown", (event) => { if (event.key === "Escape") waCloseSheet(); });
  document.addEventListener("visibilitychange", waMarkRead);
  setInterval(() => { if (wa.users.length) waRenderClock(); }, 15000);
}
