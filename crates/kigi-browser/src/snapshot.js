// The page as text for a model: headings, paragraphs, list items and table cells in document
// order, and every interactive element numbered [n] in that same order (the number is also
// written to the element as data-kigi-ref, which click and type look it up by). Numbering is
// deterministic: the same page gives the same numbers. Returns {title, url, text, count,
// truncated}.
(() => {
  const CHAR_LIMIT = 40000;
  const ELEMENT_LIMIT = 1500;
  for (const el of document.querySelectorAll('[data-kigi-ref]')) el.removeAttribute('data-kigi-ref');
  const SKIP = new Set(['SCRIPT', 'STYLE', 'NOSCRIPT', 'TEMPLATE', 'HEAD', 'META', 'LINK', 'SVG', 'CANVAS', 'IFRAME', 'OBJECT', 'EMBED']);
  const BLOCK = new Set(['P', 'DIV', 'SECTION', 'ARTICLE', 'HEADER', 'FOOTER', 'MAIN', 'NAV', 'ASIDE', 'FORM', 'FIELDSET', 'LEGEND', 'UL', 'OL', 'TABLE', 'THEAD', 'TBODY', 'TR', 'BR', 'HR', 'PRE', 'BLOCKQUOTE', 'DL', 'DT', 'DD', 'FIGURE', 'FIGCAPTION', 'DETAILS', 'DIALOG', 'ADDRESS', 'OUTPUT']);
  const ROLES = new Set(['button', 'link', 'checkbox', 'radio', 'tab', 'menuitem', 'menuitemcheckbox', 'menuitemradio', 'switch', 'option', 'combobox', 'textbox', 'searchbox', 'slider', 'spinbutton']);
  const BUTTON_INPUTS = ['submit', 'button', 'reset', 'image'];
  const lines = [];
  let line = '';
  let chars = 0;
  let count = 0;
  let truncated = false;
  const squash = (s) => (s || '').replace(/\s+/g, ' ').trim();
  const clip = (s, n) => { s = squash(s); return s.length > n ? s.slice(0, n - 1) + '…' : s; };
  const flush = () => {
    const t = squash(line);
    if (t && t !== '-' && !/^#+$/.test(t)) { lines.push(t); chars += t.length + 1; }
    line = '';
  };
  const hidden = (el) => {
    if (el.hidden) return true;
    const style = getComputedStyle(el);
    return style.display === 'none' || style.visibility === 'hidden';
  };
  const interactive = (el) => {
    const tag = el.tagName;
    if (tag === 'A') return el.hasAttribute('href');
    if (tag === 'BUTTON' || tag === 'SELECT' || tag === 'TEXTAREA' || tag === 'SUMMARY') return true;
    if (tag === 'INPUT') return el.type !== 'hidden';
    const role = el.getAttribute('role');
    if (role && ROLES.has(role)) return true;
    if (el.isContentEditable && !(el.parentElement && el.parentElement.isContentEditable)) return true;
    return el.hasAttribute('onclick');
  };
  const kind = (el) => {
    const role = el.getAttribute('role');
    if (role) return role;
    switch (el.tagName) {
      case 'A': return 'link';
      case 'BUTTON': return 'button';
      case 'SELECT': return 'select';
      case 'TEXTAREA': return 'textbox';
      case 'SUMMARY': return 'summary';
      case 'INPUT':
        if (BUTTON_INPUTS.includes(el.type)) return 'button';
        if (el.type === 'checkbox' || el.type === 'radio') return el.type;
        if (el.type === 'text') return 'textbox';
        return el.type + ' field';
    }
    return el.isContentEditable ? 'textbox' : 'clickable';
  };
  const name = (el) => {
    const aria = el.getAttribute('aria-label');
    if (aria) return aria;
    const by = el.getAttribute('aria-labelledby');
    if (by) {
      const t = by.split(/\s+/).map((id) => { const l = document.getElementById(id); return l ? l.innerText : ''; }).join(' ');
      if (squash(t)) return t;
    }
    if (el.labels && el.labels.length) {
      const t = Array.from(el.labels).map((l) => l.innerText).join(' ');
      if (squash(t)) return t;
    }
    if (el.tagName === 'INPUT' && BUTTON_INPUTS.includes(el.type)) return el.value || el.alt || el.type;
    if (el.tagName !== 'SELECT' && el.tagName !== 'TEXTAREA' && el.tagName !== 'INPUT') {
      const t = el.innerText || el.textContent;
      if (squash(t)) return t;
    }
    return el.getAttribute('placeholder') || el.getAttribute('title') || el.getAttribute('alt') || el.getAttribute('name') || '';
  };
  const describe = (el, n) => {
    let s = '[' + n + '] ' + kind(el);
    const label = clip(name(el), 100);
    if (label) s += ' "' + label + '"';
    const tag = el.tagName;
    if (tag === 'A') {
      const href = el.getAttribute('href');
      if (href && !href.startsWith('javascript:')) s += ' (' + clip(href, 200) + ')';
    } else if (tag === 'INPUT' && (el.type === 'checkbox' || el.type === 'radio')) {
      s += el.checked ? ' (checked)' : ' (unchecked)';
    } else if (tag === 'INPUT' && el.type === 'password') {
      s += el.value ? ' (filled)' : ' (empty)';
    } else if ((tag === 'INPUT' && !BUTTON_INPUTS.includes(el.type)) || tag === 'TEXTAREA') {
      s += ' value="' + clip(el.value, 200) + '"';
    } else if (tag === 'SELECT') {
      const options = Array.from(el.options);
      const chosen = options.filter((o) => o.selected).map((o) => squash(o.text));
      s += ' = "' + chosen.join(', ') + '" options: ' + options.slice(0, 30).map((o) => squash(o.text)).join(' | ');
    }
    if (el.disabled) s += ' (disabled)';
    return s;
  };
  const walk = (node) => {
    for (const child of node.childNodes) {
      if (truncated) return;
      if (chars + line.length > CHAR_LIMIT) { truncated = true; return; }
      if (child.nodeType === 3) { line += child.nodeValue; continue; }
      if (child.nodeType !== 1) continue;
      const el = child;
      const tag = el.tagName.toUpperCase();
      if (SKIP.has(tag) || hidden(el)) continue;
      if (interactive(el)) {
        if (count >= ELEMENT_LIMIT) { truncated = true; return; }
        count += 1;
        el.setAttribute('data-kigi-ref', String(count));
        line += ' ' + describe(el, count) + ' ';
        continue;
      }
      const heading = /^H([1-6])$/.exec(tag);
      if (heading) { flush(); line = '#'.repeat(Number(heading[1])) + ' '; walk(el); flush(); continue; }
      if (tag === 'LI') { flush(); line = '- '; walk(el); flush(); continue; }
      if (tag === 'IMG') { const alt = squash(el.getAttribute('alt')); if (alt) line += ' [image: ' + alt + '] '; continue; }
      const block = BLOCK.has(tag);
      if (block) flush();
      if (el.shadowRoot) walk(el.shadowRoot);
      walk(el);
      if (tag === 'TD' || tag === 'TH') line += ' | ';
      if (block) flush();
    }
  };
  if (document.body) walk(document.body);
  flush();
  return { title: document.title, url: location.href, text: lines.join('\n'), count, truncated };
})()
