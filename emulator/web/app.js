// The web chat: a small Telegram client for the emulator's cast (and, in whatsapp.js,
// a WhatsApp one for its WhatsApp users).
// State comes from /_emulator/state and /_emulator/messages; live changes arrive as
// Server-Sent Events from /_emulator/events; actions go to the control API.
"use strict";

const API = "/_emulator";
const COLORS = ["#e17076", "#7bc862", "#65aadd", "#a695e7", "#ee7aae", "#6ec9cb", "#faa774"];
const $ = (id) => document.getElementById(id);

const app = {
  state: null,          // /_emulator/state
  early: [],            // events that came before it
  userId: null,         // who we are playing as
  current: null,        // {chat_id, scope}
  topic: null,          // the open forum topic (its message_thread_id), null for General
  messages: new Map(),  // "chat:scope" -> Map(viewKey -> view) for the open chat, as this user sees it
  reading: new Set(),   // chats being read ({key, views}): the messages that came meanwhile
  unread: new Map(),    // "chat:scope:user" -> count
  notified: new Map(),  // "chat:scope:user" -> unread messages that notified the user
  previews: new Map(),  // "chat:scope" -> last message view
  pendingInline: null,  // query id the inline panel waits for
  pendingTaps: new Map(), // callback query id -> button element
  answered: new Set(),    // callback query ids already answered (answers can beat the tap's reply)
  inlineAnswers: new Map(), // inline query id -> answer event, kept for a late pendingInline
  widgetAsks: new Map(),    // widget query id -> {frame, id}: a widget's request awaiting the bot
  widgetAnswers: new Map(), // widget query id -> answer data that beat the request's reply
  typingTimer: null,
  inlineTimer: null,
  switching: 0,         // the app's own settings being changed: a render keeps what was chosen
};

const key = (chatId, scope) => `${chatId}:${scope}`;
// An ephemeral message's message_id is 0: it is known by its own id.
const viewKey = (view) => (view.ephemeral_message_id ? `e${view.ephemeral_message_id}` : String(view.message_id));
// Time zones offered for reading date_time entities (the family's, and UTC).
const ZONES = ["UTC", "Europe/Madrid", "Europe/Lisbon", "America/Sao_Paulo", "Asia/Jakarta", "Asia/Kolkata", "Europe/London"];

async function call(path, body) {
  const options = body === undefined ? {} : {
    method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify(body),
  };
  const response = await fetch(API + path, options);
  const data = await response.json();
  if (!data.ok) throw new Error(data.description || "request failed");
  return data.result;
}

function colorFor(id) { return COLORS[Math.abs(Number(id)) % COLORS.length]; }

function avatar(el, name, id) {
  el.classList.add("avatar");
  el.textContent = (name || "?").trim().charAt(0).toUpperCase();
  el.style.background = colorFor(id);
  return el;
}

function escapeHtml(text) {
  return text.replace(/[&<>"']/g, (c) => ({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;"}[c]));
}

// Text with Telegram entities -> HTML. Offsets are UTF-16, as are JS string indices.
function renderEntities(text, entities) {
  if (!entities || !entities.length) return linkify(escapeHtml(text));
  const cuts = new Set([0, text.length]);
  for (const e of entities) { cuts.add(e.offset); cuts.add(Math.min(text.length, e.offset + e.length)); }
  const points = [...cuts].sort((a, b) => a - b);
  let html = "";
  for (let i = 0; i + 1 < points.length; i++) {
    const [from, to] = [points[i], points[i + 1]];
    let piece = escapeHtml(text.slice(from, to));
    const active = entities.filter((e) => e.offset <= from && e.offset + e.length >= to)
      .sort((a, b) => b.offset - a.offset || a.length - b.length);
    for (const e of active) piece = wrapEntity(e, piece, text.slice(e.offset, e.offset + e.length));
    html += piece;
  }
  return html;
}

function wrapEntity(e, inner, whole) {
  switch (e.type) {
    case "bold": return `<b>${inner}</b>`;
    case "italic": return `<i>${inner}</i>`;
    case "underline": return `<u>${inner}</u>`;
    case "strikethrough": return `<s>${inner}</s>`;
    case "spoiler": return `<span class="spoiler">${inner}</span>`;
    case "code": return `<code>${inner}</code>`;
    case "pre": return `<pre>${inner}</pre>`;
    case "blockquote": case "expandable_blockquote": return `<blockquote>${inner}</blockquote>`;
    case "text_link": return `<a class="link" data-href="${escapeHtml(e.url)}">${inner}</a>`;
    case "url": return `<a class="link" data-href="${escapeHtml(whole)}">${inner}</a>`;
    case "bot_command": return `<a class="cmd" data-command="${escapeHtml(whole)}">${inner}</a>`;
    case "mention": case "hashtag": case "text_mention": return `<span class="link">${inner}</span>`;
    case "date_time": return `<time class="date-time" title="${escapeHtml(whole)}">${escapeHtml(dateTimeText(e, whole))}</time>`;
    default: return inner;
  }
}

// A date_time entity as this user's app shows it: in their time zone ("" keeps the text).
function dateTimeText(e, whole) {
  const format = e.date_time_format || "";
  if (!format) return whole;
  const zone = (me() && me().time_zone) || "UTC";
  if (format === "r") {
    const minutes = Math.round((e.unix_time * 1000 - Date.now()) / 60000);
    return new Intl.RelativeTimeFormat("en", {numeric: "auto"}).format(minutes, "minute");
  }
  const at = new Date(e.unix_time * 1000);
  const part = (options) => new Intl.DateTimeFormat("en-GB", {timeZone: zone, ...options}).format(at);
  const parts = [];
  if (format.includes("w")) parts.push(part({weekday: "long"}));
  if (format.includes("t")) parts.push(part({hour: "2-digit", minute: "2-digit", hour12: false}));
  if (format.includes("T")) parts.push(part({hour: "2-digit", minute: "2-digit", second: "2-digit", hour12: false, timeZoneName: "short"}));
  if (format.includes("d")) parts.push(part({day: "2-digit", month: "2-digit", year: "numeric"}));
  if (format.includes("D")) parts.push(part({day: "numeric", month: "long", year: "numeric"}));
  return parts.join(", ");
}

function linkify(html) {
  return html.replace(/(https?:\/\/[^\s<]+|(?<![\w/])t\.me\/[^\s<]+)/g,
    (url) => `<a class="link" data-href="${url}">${url}</a>`);
}

function me() { return app.state.users.find((u) => u.id === app.userId); }
function conversations() { return app.state.conversations[String(app.userId)] || []; }
function currentConversation() {
  if (!app.current) return null;
  return conversations().find((c) => c.chat_id === app.current.chat_id && c.scope === app.current.scope) || null;
}
function botById(id) { return app.state.bots.find((b) => b.id === id); }
// The bot's command menu for the current user in this kind of chat (setMyCommands).
function commandsFor(bot, conv) {
  if (!bot) return [];
  const kind = conv && conv.type !== "private" ? "group" : "private";
  return (bot.menus && bot.menus[`${app.userId}:${kind}`]) || bot.commands || [];
}

function mainBot() {
  const conv = currentConversation();
  if (conv && conv.scope) return botById(conv.scope);
  return app.state.bots[0];
}

// ----- loading ------------------------------------------------------------

async function loadState() {
  app.state = await call("/state");
  if (app.userId === null || !app.state.users.some((u) => u.id === app.userId)) {
    app.userId = app.state.users[0].id;
  }
  const convs = conversations();
  if (!currentConversation() && convs.length) app.current = {chat_id: convs[0].chat_id, scope: convs[0].scope};
  for (const conv of app.state.users.flatMap((u) => app.state.conversations[String(u.id)] || [])) {
    if (!app.previews.has(key(conv.chat_id, conv.scope))) {
      const list = await call(`/messages?chat_id=${conv.chat_id}&scope=${conv.scope}`);
      if (list.length) app.previews.set(key(conv.chat_id, conv.scope), list[list.length - 1]);
    }
  }
  renderUsers();
  renderChats();
}

async function openChat(chatId, scope, topic = null) {
  app.current = {chat_id: chatId, scope};
  app.topic = topic;
  $("group-menu").hidden = true;
  app.unread.delete(`${key(chatId, scope)}:${app.userId}`);
  app.notified.delete(`${key(chatId, scope)}:${app.userId}`);
  closeInlinePanel();
  $("commands-menu").hidden = true;
  await loadMessages(chatId, scope);
  renderChats();
  renderHeader();
  renderTopics();
  renderMessages();
  await renderComposer();
  remember();
}

// The open chat as this user's app shows it: their ephemeral messages too, one shown in
// place of the message it replaces.
// A message posted, edited or deleted while the chat is read comes as an event the list
// may not hold yet: kept aside (`app.reading`) and laid over the list, or it is lost
// from the page until the chat is opened again.
async function loadMessages(chatId, scope) {
  const reading = {key: key(chatId, scope), views: []};
  app.reading.add(reading);
  let list;
  try {
    list = await call(`/messages?chat_id=${chatId}&scope=${scope}&user=${app.userId}`);
  } finally {
    app.reading.delete(reading);
  }
  const map = new Map();
  for (const view of [...list, ...reading.views]) {
    if (view._emulator.deleted) map.delete(viewKey(view)); else map.set(viewKey(view), view);
  }
  app.messages = new Map([[reading.key, map]]);
}

function remember() {
  if (waActive()) return;  // the address names the WhatsApp user shown
  const params = new URLSearchParams();
  params.set("user", me().first_name);
  const conv = currentConversation();
  if (conv) params.set("chat", conv.type === "private" ? "bot" : conv.title);
  history.replaceState(null, "", `?${params}`);
}

// ----- rendering ----------------------------------------------------------

function renderUsers() {
  const box = $("users");
  box.replaceChildren();
  for (const user of app.state.users) {
    const tab = document.createElement("button");
    tab.className = "user-tab";
    tab.type = "button";
    tab.setAttribute("role", "tab");
    tab.dataset.user = user.first_name;
    tab.setAttribute("aria-selected", String(user.id === app.userId && !waActive()));
    tab.append(avatar(document.createElement("span"), user.first_name, user.id), user.first_name);
    const unread = [...app.unread.entries()].filter(([k]) => k.endsWith(`:${user.id}`)).reduce((n, [, v]) => n + v, 0);
    if (unread && user.id !== app.userId) {
      const rung = [...app.notified.entries()].some(([k, v]) => k.endsWith(`:${user.id}`) && v);
      tab.append(unreadBadge(unread, rung));
    }
    tab.onclick = () => switchUser(user.id);
    box.append(tab);
  }
  waTabs(box);
  renderMySettings();
}

// This user's app: the time zone it shows times in, online or not, a restart.
function renderMySettings() {
  const user = me();
  // While a change is on its way, a state read before it would flip the switch back.
  if (!user || app.switching) return;
  const zone = $("my-zone");
  zone.replaceChildren(...[...new Set([user.time_zone, ...ZONES])].map((name) => new Option(name, name)));
  zone.value = user.time_zone;
  $("my-online").checked = user.online;
}

async function changeMyApp(path, body) {
  app.switching += 1;
  try {
    await call(path, {user: app.userId, ...body});
    await loadState();
  } catch (error) { toast(error.message); }
  finally { app.switching -= 1; }
  renderMySettings();
  try {
    if (app.current) await openChat(app.current.chat_id, app.current.scope, app.topic);
  } catch (error) { toast(error.message); }
}

async function switchUser(userId, chatName) {
  waClose();
  app.userId = userId;
  const convs = conversations();
  let target = convs.find((c) => c.chat_id === app.current?.chat_id && c.scope === app.current?.scope && c.type !== "private");
  if (chatName) target = convs.find((c) => (chatName === "bot" ? c.type === "private" : c.title === chatName)) || target;
  target = target || convs[0];
  renderUsers();
  if (target) await openChat(target.chat_id, target.scope);
}

function previewText(view) {
  if (!view) return "";
  if (view.text) return view.text;
  if (view.document) return `📄 ${view.document.file_name}`;
  if (view.widget) return `🧩 ${view.caption || "Widget"}`;
  return serviceText(view) || "";
}

// What a service message says, or null for a message that is not one.
function serviceText(view) {
  const who = view.from.first_name;
  if (view.new_chat_members) return `${who} added ${view.new_chat_members.map((u) => u.first_name).join(", ")}`;
  if (view.left_chat_member) return `${who} removed ${view.left_chat_member.first_name}`;
  if (view.migrate_to_chat_id) return "The group was upgraded to a supergroup";
  if (view.migrate_from_chat_id) return `${who} upgraded the group to a supergroup`;
  if (view.forum_topic_created) return `${who} created the topic “${view.forum_topic_created.name}”`;
  if (view.forum_topic_closed) return `${who} closed the topic`;
  if (view.forum_topic_reopened) return `${who} reopened the topic`;
  return null;
}

// Whether a message of the open chat belongs to the open topic (a forum shows one topic).
function inOpenTopic(view) {
  const conv = currentConversation();
  if (!conv || !conv.is_forum) return true;
  return (view.message_thread_id ?? null) === app.topic;
}

function renderChats() {
  const nav = $("chats");
  nav.replaceChildren();
  const convs = conversations();
  if (!app.state.bots.length) {
    const note = document.createElement("div");
    note.className = "inline-note";
    note.textContent = `No bot yet: start one with BURRO_TELEGRAM_API_URL=${location.origin}`;
    nav.append(note);
  }
  for (const conv of convs) {
    const item = document.createElement("button");
    item.type = "button";
    item.className = "chat-item";
    item.dataset.chat = conv.type === "private" ? "bot" : conv.title;
    if (app.current && conv.chat_id === app.current.chat_id && conv.scope === app.current.scope) item.classList.add("active");
    const meta = document.createElement("div");
    meta.className = "meta";
    const name = document.createElement("div");
    name.className = "name";
    name.textContent = conv.title;
    const preview = document.createElement("div");
    preview.className = "preview";
    preview.textContent = previewText(app.previews.get(key(conv.chat_id, conv.scope)));
    meta.append(name, preview);
    item.append(avatar(document.createElement("span"), conv.title, conv.chat_id + conv.scope), meta);
    const unread = app.unread.get(`${key(conv.chat_id, conv.scope)}:${app.userId}`);
    if (unread) {
      const rung = app.notified.get(`${key(conv.chat_id, conv.scope)}:${app.userId}`);
      item.append(unreadBadge(unread, rung));
    }
    item.onclick = () => openChat(conv.chat_id, conv.scope);
    nav.append(item);
  }
}

// An unread count; with 🔔 when some of them notified (a phone rang), else muted grey
// (only silent messages or edits: Telegram gives no notification for those).
function unreadBadge(unread, rung) {
  const badge = document.createElement("span");
  badge.className = "badge" + (rung ? " rung" : " muted");
  badge.textContent = rung ? `🔔 ${unread}` : String(unread);
  badge.title = rung ? `${rung} of ${unread} unread notified` : `${unread} unread, no notification`;
  return badge;
}

function renderHeader(typing) {
  const conv = currentConversation();
  avatar($("chat-avatar"), conv ? conv.title : "", conv ? conv.chat_id + conv.scope : 0);
  $("chat-title").textContent = conv ? conv.title : "";
  const subtitle = $("chat-subtitle");
  subtitle.classList.toggle("typing", Boolean(typing));
  if (typing) subtitle.textContent = typing;
  else if (!conv) subtitle.textContent = "";
  else if (conv.type === "private") subtitle.textContent = `bot · @${conv.bot_username}`;
  else {
    const chat = app.state.chats.find((c) => c.id === conv.chat_id);
    const count = chat ? Object.values(chat.members).filter((s) => ["creator", "administrator", "member"].includes(s)).length : 0;
    subtitle.textContent = `${count} members`;
  }
}

function renderMessages() {
  const box = $("messages");
  box.replaceChildren();
  const map = app.current ? app.messages.get(key(app.current.chat_id, app.current.scope)) : null;
  if (!map || !map.size) {
    const empty = document.createElement("div");
    empty.className = "empty";
    const conv = currentConversation();
    empty.textContent = conv && conv.type === "private" && !conv.started
      ? `${conv.title} is a bot. Press START to talk to it.` : "No messages here yet.";
    box.append(empty);
    return;
  }
  for (const view of map.values()) {  // in the order the server shows them
    if (inOpenTopic(view)) box.append(renderMessage(view, map));
  }
  box.scrollTop = box.scrollHeight;
}

function renderMessage(view, map) {
  const el = document.createElement("div");
  el.dataset.messageId = viewKey(view);
  const said = serviceText(view);
  if (said !== null) {
    el.className = "service";
    el.textContent = said;
    return el;
  }
  const own = view.from.id === app.userId;
  el.className = "msg" + (own ? " own" : "") + (view.ephemeral_message_id ? " ephemeral" : "");
  const bubble = document.createElement("div");
  bubble.className = "bubble";
  const conv = currentConversation();
  if (!own && conv && conv.type !== "private") {
    const sender = document.createElement("div");
    sender.className = "sender";
    sender.style.color = colorFor(view.from.id);
    sender.textContent = view.sender_chat ? view.sender_chat.title : view._emulator.sender_name;
    bubble.append(sender);
  }
  if (view.via_bot) {
    const via = document.createElement("div");
    via.className = "sender via";
    via.textContent = `via @${view.via_bot.username}`;
    bubble.append(via);
  }
  if (view.reply_to_message) {
    const quote = document.createElement("div");
    quote.className = "reply-quote";
    quote.textContent = `${view.reply_to_message.from.first_name}: ${previewText(view.reply_to_message)}`;
    bubble.append(quote);
  }
  if (view.document) {
    const doc = document.createElement("div");
    doc.className = "document";
    const icon = document.createElement("div");
    icon.className = "icon";
    icon.textContent = "📄";
    const link = document.createElement("a");
    link.href = `${API}/files/${encodeURIComponent(view.document.file_id)}`;
    link.textContent = view.document.file_name;
    link.setAttribute("download", view.document.file_name);
    const size = document.createElement("div");
    size.className = "preview";
    size.textContent = `${(view.document.file_size / 1024).toFixed(1)} KB`;
    const meta = document.createElement("div");
    meta.append(link, size);
    doc.append(icon, meta);
    bubble.append(doc);
  }
  if (view.widget) bubble.append(renderWidget(view));
  const body = document.createElement("div");
  body.className = "text";
  if (view.text !== undefined) body.innerHTML = renderEntities(view.text, view.entities);
  else if (view.caption) body.innerHTML = renderEntities(view.caption, view.caption_entities);
  bubble.append(body);
  const info = document.createElement("div");
  info.className = "info";
  const time = new Date(view.date * 1000).toLocaleTimeString([], {hour: "2-digit", minute: "2-digit"});
  const rang = (view._emulator.notified || []).includes(app.userId);
  info.textContent = (rang ? "🔔 " : "") + (view.edit_date ? "edited " : "") + time;
  if (rang) info.title = "This message notified you";
  const del = document.createElement("button");
  del.type = "button";
  del.className = "del";
  del.title = "Delete";
  del.textContent = "🗑";
  del.onclick = () => deleteMessage(view);
  info.append(del);
  bubble.append(info);
  el.append(bubble);
  const rows = view.reply_markup && view.reply_markup.inline_keyboard;
  if (rows && rows.length) el.append(renderKeyboard(view, rows));
  return el;
}

function renderKeyboard(view, rows) {
  const kb = document.createElement("div");
  kb.className = "keyboard";
  rows.forEach((row, r) => {
    const line = document.createElement("div");
    line.className = "kb-row";
    row.forEach((button, c) => {
      const b = document.createElement("button");
      b.type = "button";
      b.className = "kb-btn";
      // Bot API button styles: green "success", blue "primary", red "danger".
      if (["success", "primary", "danger"].includes(button.style)) b.classList.add(`kb-${button.style}`);
      b.textContent = button.text;
      const marks = {url: "↗", switch_inline_query: "↪", switch_inline_query_current_chat: "↪"};
      for (const [field, mark] of Object.entries(marks)) {
        if (field in button) {
          const kind = document.createElement("span");
          kind.className = "kind";
          kind.textContent = mark;
          b.append(kind);
        }
      }
      // A client sends the data of the button it shows, which may be gone from the message
      // by now (an edit not yet drawn here): Telegram refuses it then (DATA_INVALID).
      if ("callback_data" in button) b.dataset.callback = button.callback_data;
      b.onclick = () => tapButton(view, [r, c], b);
      line.append(b);
    });
    kb.append(line);
  });
  return kb;
}

async function renderComposer() {
  const conv = currentConversation();
  const needsStart = Boolean(conv && conv.type === "private" && (!conv.started || conv.blocked));
  $("start-button").hidden = !needsStart;
  $("start-button").textContent = conv && conv.blocked ? "RESTART BOT" : "START";
  $("compose-form").hidden = needsStart;
  const bot = mainBot();
  $("commands-button").hidden = !commandsFor(bot, conv).length;
  $("send-as").hidden = !(conv && conv.type !== "private");
  $("group-button").hidden = !(conv && conv.type !== "private");
  const keyboard = $("reply-keyboard");
  keyboard.hidden = true;
  if (!conv) return;
  const info = await call(`/conversation?chat_id=${conv.chat_id}&scope=${conv.scope}`);
  const rows = info.reply_keyboard && info.reply_keyboard.keyboard;
  if (rows && rows.length) {
    keyboard.replaceChildren();
    for (const row of rows) {
      const line = document.createElement("div");
      line.className = "kb-row";
      for (const button of row) {
        const text = typeof button === "string" ? button : button.text;
        const b = document.createElement("button");
        b.type = "button";
        b.className = "kb-btn";
        b.textContent = text;
        b.onclick = () => send(text);
        line.append(b);
      }
      keyboard.append(line);
    }
    keyboard.hidden = false;
  }
}

// ----- actions ------------------------------------------------------------

async function send(text) {
  const conv = currentConversation();
  if (!conv || !text.trim()) return;
  try {
    const body = {user: app.userId, chat_id: conv.chat_id, scope: conv.scope, text};
    if (app.topic !== null) body.thread_id = app.topic;
    if (conv.type !== "private" && $("send-as").value) body.send_as = $("send-as").value;
    await call("/send_message", body);
  } catch (error) { toast(error.message); }
}

async function deleteMessage(view) {
  try {
    await call("/delete_message", {
      user: app.userId, chat_id: view.chat.id, scope: view._emulator.scope, message_id: view.message_id,
    });
  } catch (error) { toast(error.message); }
}

// ----- groups that change: topics, upgrades, the bot's membership -------------

function renderTopics() {
  const bar = $("topics");
  const conv = currentConversation();
  bar.hidden = !(conv && conv.is_forum);
  if (bar.hidden) return;
  if (app.topic !== null && !conv.topics.some((t) => t.message_thread_id === app.topic)) app.topic = null;
  bar.replaceChildren();
  const tab = (label, topic) => {
    const b = document.createElement("button");
    b.type = "button";
    b.textContent = label;
    b.dataset.topic = topic === null ? "general" : String(topic);
    b.setAttribute("aria-selected", String(app.topic === topic));
    b.onclick = () => { app.topic = topic; renderTopics(); renderMessages(); };
    bar.append(b);
  };
  tab("# General", null);
  for (const topic of conv.topics) tab(`${topic.closed ? "🔒" : "#"} ${topic.name}`, topic.message_thread_id);
}

function groupActions(conv) {
  const chat = app.state.chats.find((c) => c.id === conv.chat_id);
  const bot = app.state.bots[0];
  const actions = [];
  if (conv.type === "group") actions.push(["⬆️ Upgrade to a supergroup", upgradeGroup]);
  if (conv.type === "supergroup") {
    actions.push([conv.is_forum ? "🗂 Turn topics off" : "🗂 Turn topics on",
      () => act("/set_forum", {enabled: !conv.is_forum})]);
  }
  if (conv.is_forum) {
    actions.push(["➕ New topic", newTopic]);
    const topic = conv.topics.find((t) => t.message_thread_id === app.topic);
    if (topic) {
      actions.push(topic.closed
        ? ["🔓 Reopen this topic", () => act("/reopen_topic", {thread_id: topic.message_thread_id})]
        : ["🔒 Close this topic", () => act("/close_topic", {thread_id: topic.message_thread_id})]);
      actions.push(["🗑 Delete this topic", () => act("/delete_topic", {thread_id: topic.message_thread_id})]);
    }
  }
  if (bot && chat) {
    const present = ["creator", "administrator", "member"].includes(chat.members[String(bot.id)]);
    if (present) {
      actions.push([`🚪 Remove @${bot.username}`, () => act("/remove_bot", {bot: bot.id})]);
      actions.push([`⛔ Ban @${bot.username}`, () => act("/remove_bot", {bot: bot.id, kick: true})]);
    } else {
      actions.push([`🤖 Add @${bot.username}`, () => act("/add_bot", {bot: bot.id})]);
    }
  }
  if (bot) actions.push(...botFatherActions(bot));
  return actions;
}

// BotFather's settings of the bot (/setinline, /setinlinefeedback, /setprivacy).
function botFatherActions(bot) {
  const flip = (changes, said) => async () => {
    try {
      await call("/bot_settings", {bot: bot.id, ...changes});
      await loadState();
      toast(said);
    } catch (error) { toast(error.message); }
  };
  const onOff = (on) => (on ? "on" : "off");
  return [
    [`⚙️ BotFather: inline mode ${onOff(bot.inline_mode)} → ${onOff(!bot.inline_mode)}`,
      flip({inline_mode: !bot.inline_mode}, "Inline mode changed: the bot reads it when it starts")],
    [`⚙️ BotFather: inline feedback ${bot.inline_feedback}% → ${bot.inline_feedback ? 0 : 100}%`,
      flip({inline_feedback: bot.inline_feedback ? 0 : 100}, "Inline feedback changed")],
    [`⚙️ BotFather: privacy mode ${onOff(bot.privacy_mode)} → ${onOff(!bot.privacy_mode)}`,
      flip({privacy_mode: !bot.privacy_mode}, "Privacy mode changed")],
  ];
}

function toggleGroupMenu() {
  const menu = $("group-menu");
  const conv = currentConversation();
  if (!menu.hidden || !conv) { menu.hidden = true; return; }
  menu.replaceChildren();
  for (const [label, run] of groupActions(conv)) {
    const b = document.createElement("button");
    b.type = "button";
    b.textContent = label;
    b.onclick = () => { menu.hidden = true; run(); };
    menu.append(b);
  }
  menu.hidden = false;
}

// A control action on the open group as the current user; the new state is loaded.
async function act(path, extra) {
  const conv = currentConversation();
  try {
    const result = await call(path, {user: app.userId, chat_id: conv.chat_id, scope: conv.scope, ...extra});
    await loadState();
    renderTopics();
    renderMessages();
    return result;
  } catch (error) { toast(error.message); return null; }
}

async function upgradeGroup() {
  const chat = await act("/migrate", {});
  if (chat) await openChat(chat.id, 0);
}

async function newTopic() {
  const name = prompt("Topic name");
  if (!name) return;
  const topic = await act("/create_topic", {name});
  if (topic) { app.topic = topic.message_thread_id; renderTopics(); renderMessages(); }
}

async function tapButton(view, position, element) {
  const conv = currentConversation();
  try {
    const result = await call("/tap", {
      user: app.userId, chat_id: view.chat.id, scope: view._emulator.scope,
      message_id: view.message_id, ephemeral_message_id: view.ephemeral_message_id, button: position,
      data: element.dataset.callback,
    });
    if (result.kind === "callback") {
      if (app.answered.has(result.query_id)) return;
      element.classList.add("loading");
      app.pendingTaps.set(result.query_id, element);
      setTimeout(() => { element.classList.remove("loading"); app.pendingTaps.delete(result.query_id); }, 15000);
    } else if (result.kind === "inline_query") {
      startInlinePanel(result.query, result.query_id);
    } else if (result.kind === "choose_chat") {
      chooseChatFor(result.query);
    } else if (result.kind === "url") {
      followOpened(result.opened, result.url);
    } else if (result.kind === "copy_text") {
      toast("Copied to clipboard");
    } else if (result.kind === "web_app") {
      openMiniApp(result);
    } else {
      toast(`This button (${result.button}) is not supported here`);
    }
  } catch (error) {
    toast(error.message);
    // An app told its buttons changed reads the chat again, to draw the message as it is.
    if (error.message.startsWith("DATA_INVALID") && app.current) await openChat(app.current.chat_id, app.current.scope, app.topic);
  }
  void conv;
}

async function followLink(url) {
  try { followOpened(await call("/open_link", {user: app.userId, url}), url); } catch (error) { toast(error.message); }
}

// A Mini App opens at a phone's size, its initData signed for the bot as Telegram signs
// it (emulator/telegram/webapp.py), in the page's address like Telegram's apps put it.
function openMiniApp(opened) {
  if (!opened.url) { toast("This bot has no such Mini App"); return; }
  window.open(opened.url, "_blank", "popup=yes,width=390,height=780,noopener");
}

function followOpened(opened, url) {
  if (opened && opened.kind === "mini_app") {
    openMiniApp(opened);
  } else if (opened && opened.kind === "start") {
    loadState().then(() => openChat(opened.chat_id, opened.scope));
  } else if (/^https?:\/\//i.test(url)) {
    window.open(url, "_blank", "noopener");
  } else {
    toast(`Not opened: ${url}`);
  }
}

function chooseChatFor(query) {
  const list = $("picker-list");
  list.replaceChildren();
  for (const conv of conversations()) {
    const item = document.createElement("button");
    item.type = "button";
    item.className = "chat-item";
    item.textContent = conv.title;
    item.onclick = async () => {
      $("picker-backdrop").hidden = true;
      await openChat(conv.chat_id, conv.scope);
      $("input").value = `@${mainBot().username} ${query}`;
      requestInline();
    };
    list.append(item);
  }
  $("picker-backdrop").hidden = false;
}

// ----- inline mode --------------------------------------------------------

function inlineText() {
  const bot = mainBot();
  if (!bot) return null;
  const prefix = `@${bot.username}`;
  const value = $("input").value;
  if (value === prefix || value.startsWith(prefix + " ")) return value.slice(prefix.length + 1);
  return null;
}

function startInlinePanel(query, queryId) {
  $("input").value = `@${mainBot().username} ${query}`;
  $("input").focus();
  waitInline(queryId);
}

function waitInline(queryId) {
  app.pendingInline = queryId;
  showInlineNote("Loading…");
  const early = app.inlineAnswers.get(queryId);
  if (early) showInlineAnswer(early);
}

function showInlineNote(text) {
  $("inline-button-row").replaceChildren();
  const note = document.createElement("div");
  note.className = "inline-note";
  note.textContent = text;
  $("inline-results").replaceChildren(note);
  $("inline-panel").hidden = false;
}

function closeInlinePanel() {
  $("inline-panel").hidden = true;
  app.pendingInline = null;
}

function requestInline() {
  clearTimeout(app.inlineTimer);
  const query = inlineText();
  if (query === null) { closeInlinePanel(); return; }
  app.inlineTimer = setTimeout(async () => {
    const conv = currentConversation();
    try {
      const result = await call("/inline_query", {
        user: app.userId, chat_id: conv.chat_id, scope: conv.scope, query, bot: mainBot().id,
      });
      if (inlineText() === query) waitInline(result.query_id);
    } catch (error) { showInlineNote(error.message); }
  }, 250);
}

function showInlineAnswer(event) {
  app.inlineAnswers.set(event.query_id, event);
  if (app.inlineAnswers.size > 50) app.inlineAnswers.delete(app.inlineAnswers.keys().next().value);
  if (event.query_id !== app.pendingInline) return;
  const buttonRow = $("inline-button-row");
  buttonRow.replaceChildren();
  if (event.button) {
    const b = document.createElement("button");
    b.type = "button";
    b.textContent = event.button.text;
    b.onclick = () => {
      if (event.button.start_parameter !== undefined) {
        followLink(`https://t.me/${mainBot().username}?start=${event.button.start_parameter}`);
      }
      closeInlinePanel();
    };
    buttonRow.append(b);
  }
  const box = $("inline-results");
  box.replaceChildren();
  if (!event.results.length) {
    const note = document.createElement("div");
    note.className = "inline-note";
    note.textContent = "No results";
    box.append(note);
  }
  for (const result of event.results) {
    const item = document.createElement("button");
    item.type = "button";
    item.className = "inline-result";
    item.dataset.resultId = result.id;
    const title = document.createElement("span");
    title.className = "title";
    title.textContent = result.title || result.type;
    const description = document.createElement("span");
    description.className = "description";
    description.textContent = result.description || (result.input_message_content || {}).message_text || "";
    item.append(title, description);
    item.onclick = async () => {
      try {
        await call("/choose_inline_result", {user: app.userId, query_id: event.query_id, result_id: result.id});
        $("input").value = "";
        closeInlinePanel();
      } catch (error) { toast(error.message); }
    };
    box.append(item);
  }
  $("inline-panel").hidden = false;
}

// ----- toasts and alerts ---------------------------------------------------

function toast(text) {
  const el = $("toast");
  el.textContent = text;
  el.hidden = false;
  clearTimeout(app.toastTimer);
  app.toastTimer = setTimeout(() => { el.hidden = true; }, 3000);
}

function alertBox(text) {
  $("alert-text").textContent = text;
  $("alert-backdrop").hidden = false;
  $("alert-ok").focus();
}

// ----- live events ---------------------------------------------------------

// An ephemeral message changed: only its sender and its receiver see anything, and the
// open chat is read again (it may stand in place of another message, or be gone).
async function onEphemeral(view) {
  const k = key(view.chat.id, view._emulator.scope);
  const receiver = view._emulator.receiver_id;
  const mine = view.from.id === app.userId || receiver === app.userId;
  const open = app.current && key(app.current.chat_id, app.current.scope) === k;
  const arrived = !view._emulator.deleted && !view.edit_date && view._emulator.reached;
  if (arrived && app.state.users.some((u) => u.id === receiver) && !(open && receiver === app.userId)) {
    app.unread.set(`${k}:${receiver}`, (app.unread.get(`${k}:${receiver}`) || 0) + 1);
    if ((view._emulator.notified || []).includes(receiver)) {
      app.notified.set(`${k}:${receiver}`, (app.notified.get(`${k}:${receiver}`) || 0) + 1);
    }
    renderChats();
    renderUsers();
  }
  if (!mine || !open) return;
  await loadMessages(app.current.chat_id, app.current.scope);
  renderMessages();
}

function onMessage(view) {
  if (view.ephemeral_message_id) { onEphemeral(view); return; }
  const k = key(view.chat.id, view._emulator.scope);
  for (const reading of app.reading) if (reading.key === k) reading.views.push(view);
  const last = app.previews.get(k);
  if (!view._emulator.deleted && (!last || last.message_id <= view.message_id)) app.previews.set(k, view);
  const isNew = !(app.messages.get(k) && app.messages.get(k).has(viewKey(view)));
  const open = app.current && key(app.current.chat_id, app.current.scope) === k;
  if (open) {
    const map = app.messages.get(k);
    if (view._emulator.deleted) map.delete(viewKey(view)); else map.set(viewKey(view), view);
    const box = $("messages");
    const existing = box.querySelector(`[data-message-id="${viewKey(view)}"]`);
    if (view._emulator.deleted) { if (existing) existing.remove(); if (!map.size) renderMessages(); }
    else if (existing) { if (!updateWidgetInPlace(existing, view, map)) existing.replaceWith(renderMessage(view, map)); }
    else if (!inOpenTopic(view)) { /* another topic's: shown when that topic is opened */ }
    else {
      if (map.size === 1) box.replaceChildren();
      box.append(renderMessage(view, map));
      box.scrollTop = box.scrollHeight;
    }
    if (!isNew || view.from.id === app.userId) { renderChats(); return; }
  }
  if (isNew && !view._emulator.deleted && !view.edit_date) {
    for (const user of app.state.users) {
      if (user.id === view.from.id || (open && user.id === app.userId)) continue;
      const sees = (app.state.conversations[String(user.id)] || []).some((c) => key(c.chat_id, c.scope) === k);
      if (!sees) continue;
      app.unread.set(`${k}:${user.id}`, (app.unread.get(`${k}:${user.id}`) || 0) + 1);
      if ((view._emulator.notified || []).includes(user.id)) {
        app.notified.set(`${k}:${user.id}`, (app.notified.get(`${k}:${user.id}`) || 0) + 1);
      }
    }
  }
  renderChats();
  renderUsers();
}

// ----- widgets (Bot API 10.4) ------------------------------------------------
// A widget runs in a sandboxed frame (scripts only: an opaque origin) whose document the
// emulator serves with a policy that forbids any network (emulator/telegram/widgets.py);
// it talks to the chat by postMessage only (widget_bridge.js): its requests go to the
// bot as widget_query, the bot's answer and each new state come back. Sizes as the apps
// clamp them: width 200 to the bubble's, height 50-600; none given: full width, and a
// height that follows the widget's content (GUESS).

const WIDGET_HEIGHT = [50, 600];
const clamp = (value, [low, high]) => Math.min(high, Math.max(low, value));

function renderWidget(view) {
  const box = document.createElement("div");
  box.className = "widget";
  const frame = document.createElement("iframe");
  frame.className = "widget-frame";
  frame.setAttribute("sandbox", "allow-scripts");
  frame.title = view.caption || "Widget";
  const where = {chat_id: view.chat.id, scope: view._emulator.scope, message_id: view.message_id};
  frame.dataset.where = JSON.stringify(where);
  frame.src = `${API}/widget_frame?${new URLSearchParams(where)}`;
  if (view.widget.width) frame.style.width = `${Math.max(200, view.widget.width)}px`;
  if (view.widget.height) frame.dataset.fixedHeight = "true";
  frame.style.height = `${clamp(view.widget.height || 120, WIDGET_HEIGHT)}px`;
  // A widget cannot fetch, but a browser lets any frame load another page in itself (no
  // policy forbids it): a second load is such a navigation, and the chat stops it.
  let loads = 0;
  frame.addEventListener("load", () => { if (++loads > 1) stopWidget(frame); });
  box.append(frame);
  return box;
}

function stopWidget(frame) {
  const note = document.createElement("div");
  note.className = "widget-stopped";
  note.textContent = "⚠ This widget tried to leave its document and was stopped: a widget has no network.";
  frame.replaceWith(note);
}

// A widget message changed (its state, most often): its frame stays, running, and is
// told the new state; the rest of the message is drawn anew around it.
function updateWidgetInPlace(existing, view, map) {
  const frame = existing.querySelector("iframe.widget-frame");
  if (!frame || !view.widget) return false;
  const fresh = renderMessage(view, map);
  const kept = frame.parentElement;
  const bubble = kept.parentElement;
  const freshBubble = fresh.querySelector(".bubble");
  const slot = freshBubble.querySelector(".widget");
  for (const child of [...bubble.children]) if (child !== kept) child.remove();
  let before = true;
  for (const child of [...freshBubble.children]) {
    if (child === slot) before = false;
    else if (before) bubble.insertBefore(child, kept);
    else bubble.append(child);
  }
  for (const child of [...existing.children]) if (child !== bubble) child.remove();
  for (const child of [...fresh.children]) if (child !== freshBubble) existing.append(child);
  existing.className = fresh.className;
  tellWidgetState(frame, view);
  return true;
}

function tellWidgetState(frame, view) {
  postToWidget(frame, {type: "state", public_data: view.widget.public_data || "", chat_data: view.widget.chat_data || ""});
}

function postToWidget(frame, message) {
  // The frame's origin is opaque ("null"): it is told by reference, not by origin.
  if (frame.contentWindow) frame.contentWindow.postMessage({source: "burro-chat", ...message}, "*");
}

function widgetView(frame) {
  const where = JSON.parse(frame.dataset.where);
  const map = app.messages.get(key(where.chat_id, where.scope));
  return map ? map.get(String(where.message_id)) : undefined;
}

function onWidgetMessage(event) {
  const data = event.data;
  if (!data || data.source !== "burro-widget") return;
  const frame = [...document.querySelectorAll("iframe.widget-frame")].find((f) => f.contentWindow === event.source);
  if (!frame) return;  // not one of our widgets' frames
  if (data.type === "hello") {  // its state may have changed while it loaded
    const view = widgetView(frame);
    if (view && view.widget) tellWidgetState(frame, view);
  } else if (data.type === "size" && !frame.dataset.fixedHeight) {
    frame.style.height = `${clamp(Number(data.height) || 0, WIDGET_HEIGHT)}px`;
  } else if (data.type === "request") askBot(frame, data.id, data.data);
}

async function askBot(frame, id, data) {
  try {
    const asked = await call("/widget_query", {...JSON.parse(frame.dataset.where), user: app.userId, data: String(data)});
    if (app.widgetAnswers.has(asked.query_id)) {
      postToWidget(frame, {type: "answer", id, result: app.widgetAnswers.get(asked.query_id)});
      app.widgetAnswers.delete(asked.query_id);
      return;
    }
    app.widgetAsks.set(asked.query_id, {frame, id});
    setTimeout(() => {  // the bot has 15 seconds; then the request fails
      if (!app.widgetAsks.delete(asked.query_id)) return;
      postToWidget(frame, {type: "error", id, error: "the bot did not answer in time"});
    }, 15000);
  } catch (error) { postToWidget(frame, {type: "error", id, error: error.message}); }
}

function onWidgetAnswer(event) {
  const asked = app.widgetAsks.get(event.query_id);
  if (!asked) { app.widgetAnswers.set(event.query_id, event.data); return; }
  app.widgetAsks.delete(event.query_id);
  postToWidget(asked.frame, {type: "answer", id: asked.id, result: event.data});
}

function connect() {
  const source = new EventSource(`${API}/events`);
  source.onopen = () => {
    $("connection").classList.add("live");
    $("status-text").textContent = "live";
  };
  source.onerror = () => {
    $("connection").classList.remove("live");
    $("status-text").textContent = "reconnecting…";
  };
  source.onmessage = onEvent;
}

// An event before the first state is read waits for it (its users and chats).
async function onEvent(message) {
  if (!app.state) { app.early.push(message); return; }
  const event = JSON.parse(message.data);
  if (event.type === "message") onMessage(event.message);
  else if (event.type === "callback_answer" && event.user_id === app.userId) {
    app.answered.add(event.query_id);
    const button = app.pendingTaps.get(event.query_id);
    if (button) button.classList.remove("loading");
    app.pendingTaps.delete(event.query_id);
    if (event.text && event.show_alert) alertBox(event.text);
    else if (event.text) toast(event.text);
    if (event.url) followLink(event.url);
  } else if (event.type === "inline_answer" && event.user_id === app.userId) showInlineAnswer(event);
  else if (event.type === "widget_answer" && event.user_id === app.userId) onWidgetAnswer(event);
  else if (event.type === "chat_action") {
    if (app.current && event.chat_id === app.current.chat_id && event.scope === app.current.scope) {
      const bot = botById(event.bot_id);
      renderHeader(`${bot ? bot.first_name : "bot"} is ${event.action === "typing" ? "typing" : "sending a file"}…`);
      clearTimeout(app.typingTimer);
      app.typingTimer = setTimeout(() => renderHeader(), 5000);
    }
  } else if (event.type === "reply_keyboard") {
    if (app.current && event.chat_id === app.current.chat_id && event.scope === app.current.scope) renderComposer();
  } else if (event.type === "world") {
    const before = app.current && key(app.current.chat_id, app.current.scope);
    await loadState();  // an upgraded group is gone from the list: another chat opens
    const now = app.current && key(app.current.chat_id, app.current.scope);
    if (app.current && now !== before) await openChat(app.current.chat_id, app.current.scope);
    else if (app.current) { renderHeader(); renderTopics(); renderComposer(); }
    if (!$("messages").children.length && app.current) openChat(app.current.chat_id, app.current.scope);
  }
}

// ----- wiring --------------------------------------------------------------

function wire() {
  window.addEventListener("message", onWidgetMessage);
  $("compose-form").onsubmit = async (event) => {
    event.preventDefault();
    if (inlineText() !== null) return;
    const text = $("input").value;
    $("input").value = "";
    await send(text);
  };
  $("input").oninput = requestInline;
  $("start-button").onclick = async () => {
    const conv = currentConversation();
    await send("/start");
    await loadState();
    await openChat(conv.chat_id, conv.scope);
  };
  $("commands-button").onclick = () => {
    const menu = $("commands-menu");
    menu.replaceChildren();
    for (const command of commandsFor(mainBot(), currentConversation())) {
      const b = document.createElement("button");
      b.type = "button";
      b.innerHTML = `/${escapeHtml(command.command)}<span class="desc">${escapeHtml(command.description)}</span>`;
      b.onclick = () => { menu.hidden = true; send(`/${command.command}`); };
      menu.append(b);
    }
    menu.hidden = !menu.hidden;
  };
  $("alert-ok").onclick = () => { $("alert-backdrop").hidden = true; };
  $("my-zone").onchange = () => changeMyApp("/time_zone", {zone: $("my-zone").value});
  $("my-online").onchange = () => changeMyApp("/set_online", {online: $("my-online").checked});
  $("my-restart").onclick = async () => {
    await changeMyApp("/restart_app", {});
    toast("App restarted");
  };
  $("group-button").onclick = toggleGroupMenu;
  $("picker-cancel").onclick = () => { $("picker-backdrop").hidden = true; };
  $("messages").addEventListener("click", (event) => {
    const target = event.target.closest("a.cmd, a.link, .spoiler");
    if (!target) return;
    if (target.classList.contains("spoiler")) target.classList.add("revealed");
    else if (target.dataset.command) {
      const conv = currentConversation();
      const bot = mainBot();
      const command = target.dataset.command;
      send(conv.type === "private" || command.includes("@") || !bot ? command : `${command}@${bot.username}`);
    } else if (target.dataset.href) followLink(target.dataset.href);
  });
}

async function main() {
  wire();
  connect();
  await Promise.all([loadState(), waStart()]);
  for (const message of app.early.splice(0)) await onEvent(message);
  const params = new URLSearchParams(location.search);
  const wanted = params.get("user");
  const user = wanted && app.state.users.find((u) => u.first_name.toLowerCase() === wanted.toLowerCase() || String(u.id) === wanted);
  await switchUser(user ? user.id : app.userId, params.get("chat"));
  // ?wa=Abuela, or ?user=Abuela when no Telegram user has that name
  const grandparent = waFind(params.get("wa") || (user ? null : wanted));
  if (grandparent) await waOpen(grandparent.name);
  document.body.dataset.ready = "true";
}

main().catch((error) => toast(error.message));
