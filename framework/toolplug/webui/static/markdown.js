// A small Markdown renderer that builds DOM nodes from an allow-list of constructs.
// Text only ever becomes text nodes; no HTML in the input is interpreted, and no string is ever
// assigned to innerHTML (the page's Trusted Types policy would refuse it anyway).
// Blocks: paragraphs, headings, fenced and indented code, block quotes, lists, rules.
// Inline: code, strong, emphasis, strike-through, links (http, https, mailto only), autolinks.
'use strict';

(function () {
  const SAFE_PROTOCOLS = new Set(['http:', 'https:', 'mailto:']);

  function safeUrl(raw) {
    try {
      const url = new URL(raw);
      return SAFE_PROTOCOLS.has(url.protocol) ? url.href : null;
    } catch (error) {
      return null;
    }
  }

  function element(tag, className) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    return node;
  }

  function link(parent, href, label) {
    const url = safeUrl(href);
    if (url === null) {
      parent.appendChild(document.createTextNode(label === href ? href : `${label} (${href})`));
      return;
    }
    const anchor = element('a');
    anchor.href = url;
    anchor.rel = 'noopener noreferrer nofollow';
    anchor.target = '_blank';
    if (label === href) anchor.textContent = label;
    else inline(label, anchor);
    parent.appendChild(anchor);
  }

  const INLINE = new RegExp(
    [
      '(`+)([^`][\\s\\S]*?)\\1(?!`)', // 1, 2: code span
      '\\*\\*(?=\\S)([\\s\\S]*?\\S)\\*\\*', // 3: strong
      '__(?=\\S)([\\s\\S]*?\\S)__(?!\\w)', // 4: strong
      '~~(?=\\S)([\\s\\S]*?\\S)~~', // 5: strike-through
      '\\*(?=[^\\s*])([^*]*?[^\\s*])\\*', // 6: emphasis
      '(?<![\\w])_(?=[^\\s_])([^_]*?[^\\s_])_(?![\\w])', // 7: emphasis
      '(!?)\\[([^\\]\\n]*)\\]\\(\\s*<?([^\\s)<>]+)>?(?:\\s+"[^"\\n]*")?\\s*\\)', // 8, 9, 10: image or link
      '<((?:https?|mailto):[^>\\s]+)>', // 11: autolink
      '(https?:\\/\\/[^\\s<>()]*[^\\s<>().,;:!?\'"])', // 12: bare URL
    ].join('|'),
    'g',
  );

  function inline(text, parent) {
    let last = 0;
    const pattern = new RegExp(INLINE.source, 'g');
    let match;
    while ((match = pattern.exec(text)) !== null) {
      if (match.index > last) parent.appendChild(document.createTextNode(text.slice(last, match.index)));
      last = match.index + match[0].length;
      if (match[2] !== undefined) {
        const code = element('code');
        code.textContent = match[2].replace(/^ (.*) $/, '$1');
        parent.appendChild(code);
      } else if (match[3] !== undefined || match[4] !== undefined) {
        const strong = element('strong');
        inline(match[3] !== undefined ? match[3] : match[4], strong);
        parent.appendChild(strong);
      } else if (match[5] !== undefined) {
        const strike = element('s');
        inline(match[5], strike);
        parent.appendChild(strike);
      } else if (match[6] !== undefined || match[7] !== undefined) {
        const em = element('em');
        inline(match[6] !== undefined ? match[6] : match[7], em);
        parent.appendChild(em);
      } else if (match[10] !== undefined) {
        if (match[8] === '!') {
          // images are never loaded: the page shows where they would be
          link(parent, match[10], `image: ${match[9] || match[10]}`);
        } else {
          link(parent, match[10], match[9] || match[10]);
        }
      } else if (match[11] !== undefined) {
        link(parent, match[11], match[11]);
      } else if (match[12] !== undefined) {
        link(parent, match[12], match[12]);
      }
    }
    if (last < text.length) parent.appendChild(document.createTextNode(text.slice(last)));
  }

  const FENCE = /^ {0,3}(`{3,}|~{3,})\s*([\w+-]*)/;
  const HEADING = /^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$/;
  const RULE = /^ {0,3}([-*_])(\s*\1){2,}\s*$/;
  const BULLET = /^ {0,3}([-*+])\s+(.*)$/;
  const ORDERED = /^ {0,3}(\d{1,9})[.)]\s+(.*)$/;
  const QUOTE = /^ {0,3}>\s?(.*)$/;
  const INDENTED = /^( {4}|\t)(.*)$/;

  function paragraph(lines, parent) {
    const p = element('p');
    lines.forEach((line, index) => {
      if (index > 0) p.appendChild(/ {2,}$|\\$/.test(lines[index - 1]) ? element('br') : document.createTextNode(' '));
      inline(line.replace(/\\$/, '').trim(), p);
    });
    parent.appendChild(p);
  }

  function blocks(lines, parent) {
    let i = 0;
    let para = [];
    const flush = () => {
      if (para.length) paragraph(para, parent);
      para = [];
    };
    while (i < lines.length) {
      const line = lines[i];
      let match;
      if ((match = FENCE.exec(line))) {
        flush();
        const fence = match[1];
        const body = [];
        i += 1;
        while (i < lines.length && !lines[i].trim().startsWith(fence)) body.push(lines[i++]);
        i += 1;
        const pre = element('pre');
        const code = element('code');
        if (match[2]) code.dataset.language = match[2];
        code.textContent = body.join('\n');
        pre.appendChild(code);
        parent.appendChild(pre);
        continue;
      }
      if (line.trim() === '') {
        flush();
        i += 1;
        continue;
      }
      if (!para.length && (match = INDENTED.exec(line))) {
        const body = [];
        while (i < lines.length && (INDENTED.test(lines[i]) || lines[i].trim() === '')) {
          body.push(lines[i].replace(/^( {4}|\t)/, ''));
          i += 1;
        }
        const pre = element('pre');
        const code = element('code');
        code.textContent = body.join('\n').replace(/\n+$/, '');
        pre.appendChild(code);
        parent.appendChild(pre);
        continue;
      }
      if ((match = HEADING.exec(line))) {
        flush();
        const level = Math.min(6, match[1].length + 2); // the page's own headings come first
        const heading = element(`h${level}`);
        inline(match[2], heading);
        parent.appendChild(heading);
        i += 1;
        continue;
      }
      if (RULE.test(line)) {
        flush();
        parent.appendChild(element('hr'));
        i += 1;
        continue;
      }
      if (QUOTE.test(line)) {
        flush();
        const body = [];
        while (i < lines.length && (match = QUOTE.exec(lines[i]))) {
          body.push(match[1]);
          i += 1;
        }
        const quote = element('blockquote');
        blocks(body, quote);
        parent.appendChild(quote);
        continue;
      }
      const bullet = BULLET.exec(line);
      const ordered = bullet ? null : ORDERED.exec(line);
      if (bullet || ordered) {
        flush();
        i = list(lines, i, Boolean(ordered), parent);
        continue;
      }
      para.push(line);
      i += 1;
    }
    flush();
  }

  function list(lines, start, ordered, parent) {
    const pattern = ordered ? ORDERED : BULLET;
    const node = element(ordered ? 'ol' : 'ul');
    const first = pattern.exec(lines[start]);
    if (ordered && first && first[1] !== '1') node.start = Number(first[1]);
    let i = start;
    let item = null;
    let body = [];
    const close = () => {
      if (item) {
        blocks(body, item);
        node.appendChild(item);
      }
    };
    while (i < lines.length) {
      const match = pattern.exec(lines[i]);
      if (match) {
        close();
        item = element('li');
        body = [match[2]];
      } else if (lines[i].trim() !== '' && /^\s+/.test(lines[i])) {
        body.push(lines[i].replace(/^\s{1,4}/, ''));
      } else if (lines[i].trim() === '' && i + 1 < lines.length && (pattern.test(lines[i + 1]) || /^\s+\S/.test(lines[i + 1]))) {
        body.push('');
      } else {
        break;
      }
      i += 1;
    }
    close();
    parent.appendChild(node);
    return i;
  }

  /** Render Markdown text as a DocumentFragment of allow-listed elements and text nodes. */
  function render(text) {
    const fragment = document.createDocumentFragment();
    blocks(String(text).replace(/\r\n?/g, '\n').split('\n'), fragment);
    return fragment;
  }

  window.ToolplugMarkdown = Object.freeze({ render, safeUrl });
})();
