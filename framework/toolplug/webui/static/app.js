// The chat page of `toolplug web`. It speaks the AI SDK's chat protocol: it posts the chat's
// UIMessages to api/chat and reads the UI message stream (server-sent events) back into the last
// assistant message. Everything shown comes from models, tools and web pages, so every string
// becomes a text node (or goes through ToolplugMarkdown, which builds allow-listed elements).
'use strict';

(function () {
  const STORE_KEY = 'toolplug.chats.v1';
  const CURRENT_KEY = 'toolplug.current.v1';
  const TOKEN_KEY = 'toolplug.token';
  const UNANSWERED = 'The user sent a new message without answering this approval request.';
  const CONFIDENCE_KEY = 'requiredProviderConfidence';
  const LEVELS = ['unknown', 'untrusted', 'very_low', 'low', 'moderate', 'medium', 'high'];

  const $ = (id) => document.getElementById(id);
  const ui = {
    log: $('log'),
    prompt: $('prompt'),
    composer: $('composer'),
    send: $('send'),
    stop: $('stop'),
    notice: $('notice'),
    confidence: $('confidence'),
    tools: $('tools'),
    showTools: $('show-tools'),
    newChat: $('new-chat'),
    history: $('history'),
    provider: $('provider'),
  };

  // --- small DOM helpers --------------------------------------------------------------------------

  function el(tag, className, ...children) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    for (const child of children) {
      if (child === null || child === undefined || child === false) continue;
      node.appendChild(typeof child === 'string' ? document.createTextNode(child) : child);
    }
    return node;
  }

  function button(label, className, onClick) {
    const node = el('button', className, label);
    node.type = 'button';
    node.addEventListener('click', onClick);
    return node;
  }

  function showNotice(text) {
    ui.notice.textContent = text;
    ui.notice.hidden = !text;
  }

  // --- the token --------------------------------------------------------------------------------------

  function readToken() {
    const params = new URLSearchParams(location.search);
    const fromUrl = params.get('token');
    if (fromUrl) {
      sessionStorage.setItem(TOKEN_KEY, fromUrl);
      params.delete('token');
      const query = params.toString();
      history.replaceState(null, '', location.pathname + (query ? `?${query}` : '') + location.hash);
      return fromUrl;
    }
    return sessionStorage.getItem(TOKEN_KEY);
  }

  const token = readToken();
  const authHeaders = () => ({ authorization: `Bearer ${token}` });

  // --- chats in localStorage ------------------------------------------------------------------------

  function newId(prefix) {
    return `${prefix}-${crypto.randomUUID()}`;
  }

  function loadStore() {
    try {
      const data = JSON.parse(localStorage.getItem(STORE_KEY) || 'null');
      if (data && typeof data === 'object' && data.chats && typeof data.chats === 'object') return data;
    } catch (error) {
      // a broken store is replaced below; the chats in it cannot be read anyway
    }
    return { chats: {} };
  }

  const store = loadStore();

  function blankChat() {
    return { id: newId('chat'), title: 'New chat', messages: [], timings: {}, errors: {}, updated: Date.now() };
  }

  let chat = store.chats[localStorage.getItem(CURRENT_KEY)] || blankChat();

  function save() {
    chat.updated = Date.now();
    if (chat.messages.length) store.chats[chat.id] = chat;
    for (;;) {
      try {
        localStorage.setItem(STORE_KEY, JSON.stringify(store));
        localStorage.setItem(CURRENT_KEY, chat.id);
        return;
      } catch (error) {
        const ids = Object.keys(store.chats).filter((id) => id !== chat.id);
        if (!ids.length) {
          showNotice('This chat no longer fits in the browser storage; it is kept until the page closes.');
          return;
        }
        ids.sort((a, b) => store.chats[a].updated - store.chats[b].updated);
        delete store.chats[ids[0]]; // the oldest chat makes room
      }
    }
  }

  function fillHistory() {
    ui.history.replaceChildren();
    const chats = Object.values(store.chats).sort((a, b) => b.updated - a.updated);
    if (!store.chats[chat.id]) chats.unshift(chat);
    for (const item of chats) {
      const option = el('option', null, item.title || 'Chat');
      option.value = item.id;
      option.selected = item.id === chat.id;
      ui.history.appendChild(option);
    }
  }

  // --- reading the UI message stream ---------------------------------------------------------------

  function toolPartOf(message, callId) {
    for (let i = message.parts.length - 1; i >= 0; i -= 1) {
      const part = message.parts[i];
      if (part.toolCallId === callId) return part;
    }
    return null;
  }

  function parsePartial(text) {
    try {
      return { ok: true, value: JSON.parse(text) };
    } catch (error) {
      return { ok: false };
    }
  }

  // Applies one chunk to the assistant message, as the AI SDK's client does.
  function applyChunk(run, chunk) {
    const message = run.message;
    const type = chunk.type;
    if (type === 'start') {
      if (chunk.messageId) message.id = chunk.messageId;
      mergeMetadata(message, chunk.messageMetadata);
    } else if (type === 'text-start' || type === 'reasoning-start') {
      const part = { type: type === 'text-start' ? 'text' : 'reasoning', text: '', state: 'streaming' };
      message.parts.push(part);
      run.blocks[chunk.id] = part;
    } else if (type === 'text-delta' || type === 'reasoning-delta') {
      const part = run.blocks[chunk.id];
      if (part) part.text += chunk.delta;
    } else if (type === 'text-end' || type === 'reasoning-end') {
      const part = run.blocks[chunk.id];
      if (part) part.state = 'done';
    } else if (type === 'start-step') {
      message.parts.push({ type: 'step-start' });
    } else if (type === 'finish-step') {
      run.blocks = {};
    } else if (type === 'tool-input-start') {
      const part = newToolPart(chunk);
      part.state = 'input-streaming';
      message.parts.push(part);
      run.inputText[chunk.toolCallId] = '';
    } else if (type === 'tool-input-delta') {
      const part = toolPartOf(message, chunk.toolCallId);
      run.inputText[chunk.toolCallId] = (run.inputText[chunk.toolCallId] || '') + chunk.inputTextDelta;
      const parsed = parsePartial(run.inputText[chunk.toolCallId]);
      if (part && parsed.ok) part.input = parsed.value;
    } else if (type === 'tool-input-available' || type === 'tool-input-error') {
      let part = toolPartOf(message, chunk.toolCallId);
      if (!part) {
        part = newToolPart(chunk);
        message.parts.push(part);
      }
      copyCallFields(part, chunk);
      delete run.inputText[chunk.toolCallId];
      if (type === 'tool-input-available') {
        part.state = 'input-available';
        part.input = chunk.input;
      } else {
        part.state = 'output-error';
        part.errorText = chunk.errorText;
        if (part.type === 'dynamic-tool') part.input = chunk.input;
        else {
          part.input = undefined;
          part.rawInput = chunk.input;
        }
      }
    } else if (type === 'tool-approval-request') {
      const part = toolPartOf(message, chunk.toolCallId);
      if (part) {
        part.state = 'approval-requested';
        part.approval = { id: chunk.approvalId };
        if (chunk.signature) part.approval.signature = chunk.signature;
        if (chunk.isAutomatic) part.approval.isAutomatic = true;
        run.askedApproval = true;
      }
    } else if (type === 'tool-output-available' || type === 'tool-output-error' || type === 'tool-output-denied') {
      const part = toolPartOf(message, chunk.toolCallId);
      if (!part) return;
      if (type === 'tool-output-available') {
        part.state = 'output-available';
        part.output = chunk.output;
        if (chunk.preliminary) part.preliminary = true;
        else delete part.preliminary;
      } else if (type === 'tool-output-error') {
        part.state = 'output-error';
        part.errorText = chunk.errorText;
      } else {
        part.state = 'output-denied';
      }
      if (chunk.providerExecuted) part.providerExecuted = true;
      finishTiming(chunk.toolCallId, 'done');
    } else if (type === 'source-url') {
      const source = { type: 'source-url', sourceId: chunk.sourceId, url: chunk.url };
      if (chunk.title) source.title = chunk.title;
      message.parts.push(source);
    } else if (type === 'file') {
      message.parts.push({ type: 'file', url: chunk.url, mediaType: chunk.mediaType });
    } else if (type === 'message-metadata' || type === 'finish') {
      mergeMetadata(message, chunk.messageMetadata);
      if (type === 'finish') run.finished = true;
    } else if (type === 'error') {
      (chat.errors[message.id] = chat.errors[message.id] || []).push(String(chunk.errorText || 'An error occurred.'));
      run.failed = true;
    } else if (type === 'abort') {
      run.aborted = true;
    } else if (typeof type === 'string' && type.startsWith('data-')) {
      if (type === 'data-tool-status' && chunk.data && chunk.data.status === 'running') {
        chat.timings[chunk.data.toolCallId] = { start: Date.now() };
      } else if (!chunk.transient) {
        const data = { type, data: chunk.data };
        if (chunk.id) data.id = chunk.id;
        message.parts.push(data);
      }
    }
  }

  function newToolPart(chunk) {
    const part = chunk.dynamic
      ? { type: 'dynamic-tool', toolName: chunk.toolName, toolCallId: chunk.toolCallId }
      : { type: `tool-${chunk.toolName}`, toolCallId: chunk.toolCallId };
    copyCallFields(part, chunk);
    return part;
  }

  function copyCallFields(part, chunk) {
    if (chunk.title) part.title = chunk.title;
    if (chunk.providerExecuted) part.providerExecuted = true;
    if (chunk.toolMetadata) part.toolMetadata = chunk.toolMetadata;
    if (chunk.providerMetadata) part.callProviderMetadata = chunk.providerMetadata;
  }

  function mergeMetadata(message, metadata) {
    if (metadata === undefined || metadata === null) return;
    message.metadata = Object.assign({}, message.metadata || {}, metadata);
  }

  function finishTiming(callId, how) {
    const timing = chat.timings[callId];
    if (timing && !timing.end) {
      timing.end = Date.now();
      timing.how = how;
    }
  }

  // Reads server-sent events from the response body and applies each chunk.
  async function readStream(response, run) {
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += value;
      let end;
      while ((end = buffer.indexOf('\n\n')) !== -1) {
        const event = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const data = event
          .split('\n')
          .filter((line) => line.startsWith('data:'))
          .map((line) => line.slice(5).replace(/^ /, ''))
          .join('\n');
        if (!data) continue; // a comment (keep-alive)
        if (data === '[DONE]') return;
        applyChunk(run, JSON.parse(data));
        scheduleRender();
      }
    }
  }

  // --- sending ------------------------------------------------------------------------------------------

  let running = null;

  function setRunning(on) {
    ui.send.hidden = on;
    ui.stop.hidden = !on;
    ui.prompt.setAttribute('aria-busy', on ? 'true' : 'false');
    document.body.classList.toggle('running', on);
  }

  function titleOf(text) {
    const line = text.trim().split('\n')[0];
    return line.length > 60 ? `${line.slice(0, 57)}...` : line || 'Chat';
  }

  function closeOpenApprovals() {
    for (const message of chat.messages) {
      for (const part of message.parts) {
        if (isTool(part) && part.state === 'approval-requested') {
          part.state = 'output-denied';
          part.approval = Object.assign({}, part.approval, { approved: false, reason: UNANSWERED });
        }
      }
    }
  }

  function submitPrompt() {
    const text = ui.prompt.value.trim();
    if (!text || running || !token) return;
    closeOpenApprovals();
    if (!chat.messages.length) chat.title = titleOf(text);
    chat.messages.push({ id: newId('user'), role: 'user', parts: [{ type: 'text', text }] });
    ui.prompt.value = '';
    save();
    fillHistory();
    render();
    send();
  }

  async function send() {
    const last = chat.messages[chat.messages.length - 1];
    const continuing = last && last.role === 'assistant';
    const body = JSON.stringify({ id: chat.id, messages: chat.messages, trigger: 'submit-message' });
    const message = continuing ? last : { id: newId('assistant'), role: 'assistant', parts: [] };
    if (!continuing) chat.messages.push(message);
    const controller = new AbortController();
    const run = { message, controller, blocks: {}, inputText: {}, askedApproval: false };
    running = run;
    setRunning(true);
    render();
    try {
      const response = await fetch('api/chat', {
        method: 'POST',
        headers: Object.assign({ 'content-type': 'application/json' }, authHeaders()),
        body,
        signal: controller.signal,
      });
      if (!response.ok) {
        let problem = `The server answered ${response.status}.`;
        try {
          problem = (await response.json()).error || problem;
        } catch (error) {
          // not JSON: keep the status
        }
        (chat.errors[message.id] = chat.errors[message.id] || []).push(problem);
        if (response.status === 401) showNotice(problem);
      } else {
        await readStream(response, run);
      }
    } catch (error) {
      if (error.name === 'AbortError') run.aborted = true;
      else (chat.errors[message.id] = chat.errors[message.id] || []).push(`The connection failed: ${error.message}`);
    } finally {
      for (const part of message.parts) {
        if (isTool(part)) finishTiming(part.toolCallId, run.aborted ? 'stopped' : 'done');
        if ((part.type === 'text' || part.type === 'reasoning') && part.state === 'streaming') part.state = 'done';
      }
      if (run.aborted) message.metadata = Object.assign({}, message.metadata || {}, { stopped: true });
      if (!continuing && !message.parts.length && !chat.errors[message.id]) chat.messages.pop();
      running = null;
      setRunning(false);
      save();
      render();
      focusApproval();
    }
  }

  function stop() {
    if (running) running.controller.abort();
  }

  // --- approvals ------------------------------------------------------------------------------------------

  function answer(part, approved, reason) {
    part.state = 'approval-responded';
    part.approval = Object.assign({}, part.approval, { approved });
    if (!approved && reason) part.approval.reason = reason;
    save();
    render();
    const last = chat.messages[chat.messages.length - 1];
    const open = last.parts.some((p) => isTool(p) && p.state === 'approval-requested');
    if (!open && !running) send();
    else focusApproval();
  }

  function focusApproval() {
    const next = ui.log.querySelector('.approval button.approve');
    if (next) next.focus();
  }

  // --- rendering ------------------------------------------------------------------------------------------

  const isTool = (part) => part.type === 'dynamic-tool' || part.type.startsWith('tool-');
  const toolName = (part) => (part.type === 'dynamic-tool' ? part.toolName : part.type.slice(5));
  const openDetails = new Set();
  let renderScheduled = false;
  let toolInfo = {};

  function scheduleRender() {
    if (renderScheduled) return;
    renderScheduled = true;
    setTimeout(() => {
      renderScheduled = false;
      render();
    }, 30);
  }

  function details(key, summary, body, openByDefault) {
    const node = el('details', null, el('summary', null, summary), body);
    node.open = openDetails.has(key) || (openByDefault && !openDetails.has(`closed:${key}`));
    node.addEventListener('toggle', () => {
      if (node.open) {
        openDetails.add(key);
        openDetails.delete(`closed:${key}`);
      } else {
        openDetails.delete(key);
        openDetails.add(`closed:${key}`);
      }
    });
    return node;
  }

  function pretty(value, sensitive) {
    if (value === undefined) return '';
    if (typeof value === 'string') return value;
    let shown = value;
    if (sensitive && sensitive.length && value && typeof value === 'object' && !Array.isArray(value)) {
      shown = Object.assign({}, value);
      for (const name of sensitive) if (name in shown) shown[name] = '[redacted]';
    }
    return JSON.stringify(shown, null, 2);
  }

  function sizeOf(text) {
    const bytes = Math.floor((String(text).length * 3) / 4);
    return bytes > 1024 ? `${(bytes / 1024).toFixed(1)} kB` : `${bytes} bytes`;
  }

  // A file is never loaded or shown: a placeholder says what it is.
  function filePlaceholder(mediaType, name, data) {
    const what = [name, mediaType || 'file', data ? sizeOf(data) : null].filter(Boolean).join(', ');
    return el('div', 'file', `[file: ${what}]`);
  }

  function outputView(output) {
    const box = el('div', 'output');
    if (typeof output === 'string') {
      box.appendChild(el('pre', 'text', output));
      return box;
    }
    if (output && typeof output === 'object' && Array.isArray(output.content)) {
      for (const item of output.content) {
        if (item && item.type === 'text') box.appendChild(el('pre', 'text', String(item.text)));
        else if (item && (item.type === 'image' || item.type === 'audio')) {
          box.appendChild(filePlaceholder(item.mimeType, item.type, item.data));
        } else if (item && (item.type === 'resource' || item.type === 'resource_link')) {
          const resource = item.resource || item;
          box.appendChild(filePlaceholder(resource.mimeType, resource.uri || resource.name, resource.blob));
        } else box.appendChild(el('pre', 'json', pretty(item)));
      }
      return box;
    }
    box.appendChild(el('pre', 'json', pretty(output)));
    return box;
  }

  function seconds(timing) {
    const end = timing.end || Date.now();
    return `${((end - timing.start) / 1000).toFixed(1)} s`;
  }

  function statusOf(part, live) {
    const timing = chat.timings[part.toolCallId];
    switch (part.state) {
      case 'input-streaming':
        return live ? 'writing input' : 'interrupted';
      case 'input-available':
        if (timing && timing.how === 'stopped') return 'stopped';
        if (!live) return 'not run';
        return timing ? 'running' : 'queued';
      case 'approval-requested':
        return 'needs approval';
      case 'approval-responded':
        return part.approval && part.approval.approved ? 'approved' : 'denied';
      case 'output-available':
        return part.preliminary ? 'running' : 'done';
      case 'output-error':
        return 'failed';
      case 'output-denied':
        return 'denied';
      default:
        return part.state;
    }
  }

  function toolCard(message, part, live) {
    const name = toolName(part);
    const info = toolInfo[name] || {};
    const status = statusOf(part, live);
    const card = el('article', `tool-card status-${status.replace(/\s+/g, '-')}`);
    card.dataset.toolCallId = part.toolCallId;
    card.setAttribute('aria-label', `Tool call ${part.title || info.title || name}: ${status}`);
    const timing = chat.timings[part.toolCallId];
    const timer = el('span', 'timer', timing ? seconds(timing) : '');
    if (timing && !timing.end) timer.dataset.running = part.toolCallId;
    card.appendChild(
      el(
        'header',
        'tool-head',
        el('span', 'tool-title', part.title || info.title || name),
        part.title || info.title ? el('code', 'tool-name', name) : null,
        el('span', 'badge', status),
        timer,
      ),
    );
    const input = part.state === 'output-error' && part.input === undefined ? part.rawInput : part.input;
    const streamingText = running && running.message === message ? running.inputText[part.toolCallId] : undefined;
    const inputText = streamingText !== undefined && part.state === 'input-streaming' ? streamingText : pretty(input, info.sensitiveArguments);
    if (inputText) {
      card.appendChild(details(`${part.toolCallId}:input`, 'Input', el('pre', 'json input', inputText), true));
    }
    if (part.state === 'output-available') {
      card.appendChild(details(`${part.toolCallId}:output`, 'Output', outputView(part.output), true));
    } else if (part.state === 'output-error') {
      const lead = part.input === undefined && part.rawInput !== undefined ? 'The call could not run: ' : 'The tool failed: ';
      card.appendChild(el('p', 'error', lead, part.errorText || 'no reason given'));
    } else if (part.state === 'output-denied' || (part.state === 'approval-responded' && !part.approval.approved)) {
      const reason = part.approval && part.approval.reason;
      card.appendChild(el('p', 'denied', reason ? `Denied: ${reason}` : 'Denied.'));
    } else if (part.state === 'approval-requested') {
      card.appendChild(approvalBox(part));
    }
    return card;
  }

  // Deny forms being filled in, by call id: their text survives a new render.
  const denying = new Map();

  function approvalBox(part) {
    const box = el('div', 'approval');
    box.appendChild(el('p', null, 'This call needs your approval before it runs.'));
    const approve = button('Approve', 'approve', () => answer(part, true));
    box.appendChild(approve);
    if (!denying.has(part.toolCallId)) {
      box.appendChild(
        button('Deny', 'deny', () => {
          denying.set(part.toolCallId, '');
          render();
          const input = ui.log.querySelector(`[data-tool-call-id="${CSS.escape(part.toolCallId)}"] .deny-input`);
          if (input) input.focus();
        }),
      );
      return box;
    }
    approve.disabled = true;
    const form = el('form', 'deny-reason');
    const input = el('input', 'deny-input');
    input.type = 'text';
    input.name = 'reason';
    input.maxLength = 500;
    input.value = denying.get(part.toolCallId);
    input.setAttribute('aria-label', 'Why? The model reads this.');
    input.addEventListener('input', () => denying.set(part.toolCallId, input.value));
    const cancel = () => {
      denying.delete(part.toolCallId);
      render();
      focusApproval();
    };
    input.addEventListener('keydown', (event) => {
      if (event.key === 'Escape') {
        event.stopPropagation();
        cancel();
      }
    });
    const submit = el('button', 'deny-send', 'Send denial');
    submit.type = 'submit';
    form.append(el('label', null, 'Why? (the model reads this) ', input), submit, button('Cancel', 'deny-cancel', cancel));
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      denying.delete(part.toolCallId);
      answer(part, false, input.value.trim());
    });
    box.appendChild(form);
    return box;
  }

  function sourcesView(sources) {
    const list = el('ol');
    for (const source of sources) {
      const url = window.ToolplugMarkdown.safeUrl(source.url);
      const label = source.title || source.url;
      if (url) {
        const anchor = el('a', null, label);
        anchor.href = url;
        anchor.rel = 'noopener noreferrer nofollow';
        anchor.target = '_blank';
        list.appendChild(el('li', null, anchor, el('span', 'source-url', ` ${new URL(url).host}`)));
      } else {
        list.appendChild(el('li', null, `${label} (${source.url})`));
      }
    }
    return el('section', 'sources', el('h2', null, 'Sources used by tools'), list);
  }

  function messageView(message, index) {
    const live = Boolean(running && running.message === message);
    const node = el('section', `message ${message.role}`);
    node.dataset.messageId = message.id;
    node.appendChild(el('h2', 'visually-hidden', message.role === 'user' ? 'You' : 'Assistant'));
    const sources = [];
    message.parts.forEach((part, number) => {
      const key = `${message.id}:${number}`;
      if (part.type === 'text') {
        const body = el('div', 'text');
        if (message.role === 'user') body.appendChild(el('p', 'plain', part.text));
        else body.appendChild(window.ToolplugMarkdown.render(part.text));
        node.appendChild(body);
      } else if (part.type === 'reasoning') {
        if (part.text) node.appendChild(details(key, 'Reasoning', el('div', 'reasoning', part.text), false));
      } else if (part.type === 'source-url') {
        sources.push(part);
      } else if (part.type === 'file') {
        node.appendChild(filePlaceholder(part.mediaType, part.filename, null));
      } else if (isTool(part)) {
        node.appendChild(toolCard(message, part, live));
      }
    });
    if (live && !message.parts.some((part) => part.type === 'text' && part.text)) {
      node.appendChild(el('p', 'thinking', 'Working...'));
    }
    for (const error of chat.errors[message.id] || []) node.appendChild(el('p', 'error run-error', error));
    if (message.metadata && message.metadata.stopped) node.appendChild(el('p', 'stopped', 'Stopped.'));
    if (sources.length) node.appendChild(sourcesView(sources));
    return node;
  }

  function requiredConfidence() {
    let best = -1;
    for (const message of chat.messages) {
      const level = message.metadata && message.metadata[CONFIDENCE_KEY];
      best = Math.max(best, LEVELS.indexOf(level));
    }
    return best >= 0 ? LEVELS[best] : null;
  }

  // Which control inside the log has the focus, so a new render can give it back.
  function focusKey() {
    const active = document.activeElement;
    if (!active || !ui.log.contains(active)) return null;
    const owner = active.closest('[data-tool-call-id]');
    return owner ? { call: owner.dataset.toolCallId, className: active.className } : null;
  }

  function restoreFocus(key) {
    if (!key) return;
    const owner = ui.log.querySelector(`[data-tool-call-id="${CSS.escape(key.call)}"]`);
    const target = owner && key.className && owner.querySelector(`.${key.className.split(' ').map(CSS.escape).join('.')}`);
    if (target) target.focus();
  }

  function render() {
    const atBottom = ui.log.scrollHeight - ui.log.scrollTop - ui.log.clientHeight < 80;
    const focused = focusKey();
    ui.log.replaceChildren(...chat.messages.map(messageView));
    restoreFocus(focused);
    const level = requiredConfidence();
    ui.confidence.hidden = !level;
    ui.confidence.textContent = level
      ? `Tool results in this chat may only go to a provider with confidence ${level.replace('_', ' ')} or higher.`
      : '';
    if (atBottom) ui.log.scrollTop = ui.log.scrollHeight;
  }

  setInterval(() => {
    for (const timer of ui.log.querySelectorAll('[data-running]')) {
      const timing = chat.timings[timer.dataset.running];
      if (timing) timer.textContent = seconds(timing);
    }
  }, 100);

  // --- the tools panel ------------------------------------------------------------------------------------

  async function loadTools() {
    if (!token) return;
    try {
      const response = await fetch('api/tools', { headers: authHeaders() });
      const payload = await response.json();
      if (!response.ok) {
        showNotice(payload.error || `The server answered ${response.status}.`);
        return;
      }
      toolInfo = {};
      for (const tool of payload.tools) toolInfo[tool.id] = tool;
      const provider = payload.provider;
      ui.provider.textContent = provider ? `${provider.id} · ${provider.model} · confidence ${provider.confidence}` : 'no provider configured';
      ui.tools.replaceChildren(toolsView(payload));
      render();
    } catch (error) {
      showNotice(`The tools could not be loaded: ${error.message}`);
    }
  }

  function toolsView(payload) {
    const runnable = payload.tools.filter((tool) => tool.status === 'runnable');
    const others = payload.tools.filter((tool) => tool.status !== 'runnable');
    const list = el('ul', 'tool-list');
    for (const tool of runnable) {
      list.appendChild(
        el(
          'li',
          'runnable',
          el('strong', null, tool.title || tool.id),
          ' ',
          el('code', null, tool.id),
          tool.needsApproval ? el('span', 'badge', 'asks first') : null,
          tool.description ? el('div', 'description', tool.description) : null,
        ),
      );
    }
    const other = el('ul', 'tool-list');
    for (const tool of others) {
      const reasons = el('ul', 'reasons', ...tool.reasons.map((reason) => el('li', null, reason)));
      other.appendChild(el('li', tool.status, el('code', null, tool.id), el('span', 'badge', tool.status), reasons));
    }
    return el(
      'div',
      null,
      el('h2', null, `Runnable tools (${runnable.length}) for ${payload.component}`),
      runnable.length ? list : el('p', null, 'None.'),
      others.length ? el('h2', null, 'Not runnable here') : null,
      others.length ? other : null,
    );
  }

  // --- wiring ---------------------------------------------------------------------------------------------

  ui.composer.addEventListener('submit', (event) => {
    event.preventDefault();
    submitPrompt();
  });
  ui.prompt.addEventListener('keydown', (event) => {
    if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      submitPrompt();
    }
  });
  document.addEventListener('keydown', (event) => {
    if (event.key === 'Escape' && running) stop();
  });
  ui.stop.addEventListener('click', stop);
  ui.newChat.addEventListener('click', () => {
    if (running) stop();
    chat = blankChat();
    save();
    fillHistory();
    render();
    ui.prompt.focus();
  });
  ui.history.addEventListener('change', () => {
    if (running) stop();
    chat = store.chats[ui.history.value] || chat;
    save();
    render();
  });
  ui.showTools.addEventListener('click', () => {
    ui.tools.hidden = !ui.tools.hidden;
    ui.showTools.setAttribute('aria-expanded', String(!ui.tools.hidden));
  });

  if (!token) {
    showNotice('This page needs the link that toolplug web printed (it holds the access token).');
    ui.send.disabled = true;
  }
  fillHistory();
  render();
  loadTools();
  ui.prompt.focus();
})();
