(function () {
  'use strict';
  // The dialog is data (the JSON block above). Every string from it is put
  // into the page with textContent or as a text node, never parsed as HTML.
  // Entries are drawn in two steps: a light shell with the header line for
  // every entry (in chunks after the first screen), and the body (Markdown,
  // args, diffs, results) when the shell comes near the viewport.

  var FOLD_LINES = 12, FOLD_CHARS = 4000, FIRST_CHUNK = 150, CHUNK = 2500;
  // An image the dialog carries as a data: URL is shown up to this many
  // characters of URL (about 3 MB of image); a bigger one is named, not drawn.
  var MAX_IMAGE_URL = 4000000;
  var data = JSON.parse(document.getElementById('dialog-data').textContent);
  var nodes = data.nodes;
  var root = document.getElementById('timeline');
  var shells = new Array(nodes.length);
  var filled = new Uint8Array(nodes.length); // 0 no body, 1 folded body, 2 full body
  var bySeq = new Map();
  var built = 0;
  var hay = null;
  var query = '';
  var hits = [], hitSet = new Set(), hitPos = -1;
  var cur = -1;

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }

  // copyButton copies text (or what a function gives when clicked).
  function copyButton(text, what) {
    var b = el('button', 'copy', 'copy');
    b.type = 'button';
    b.title = 'copy ' + what;
    b.setAttribute('aria-label', 'copy ' + what);
    b.addEventListener('click', function (e) {
      e.preventDefault(); // inside a summary: copy, do not open
      e.stopPropagation();
      var t = typeof text === 'function' ? text() : text;
      var done = function () { b.textContent = 'copied'; setTimeout(function () { b.textContent = 'copy'; }, 1500); };
      if (navigator.clipboard && navigator.clipboard.writeText) navigator.clipboard.writeText(t).then(done, function () { if (copyBySelection(t)) done(); });
      else if (copyBySelection(t)) done();
    });
    return b;
  }

  function copyBySelection(t) {
    var ta = el('textarea', 'offscreen');
    ta.value = t;
    ta.setAttribute('readonly', '');
    document.body.appendChild(ta);
    ta.select();
    var ok = false;
    try { ok = document.execCommand('copy'); } catch (err) { ok = false; }
    ta.remove();
    return ok;
  }

  function num(n) {
    var s = String(Math.round(n)), out = '';
    while (s.length > 3) { out = ',' + s.slice(-3) + out; s = s.slice(0, -3); }
    return s + out;
  }

  function ms(v) {
    if (v === null) return '\u2014'; // unknown: the conversion's clock, not the run's
    if (v === undefined) return '';
    if (v < 1000) return v + 'ms';
    if (v < 60000) return (v / 1000).toFixed(1) + 's';
    var s = Math.floor(v / 1000);
    if (s < 3600) return Math.floor(s / 60) + 'm' + String(s % 60).padStart(2, '0') + 's';
    var m = Math.floor(s / 60);
    return Math.floor(m / 60) + 'h' + String(m % 60).padStart(2, '0') + 'm';
  }

  function tokens(t) {
    if (!t) return '';
    var s = '↓' + num(t.in) + ' ↑' + num(t.out);
    var extra = [];
    if (t.cache_read) extra.push('cache read ' + num(t.cache_read));
    if (t.cache_write) extra.push('cache write ' + num(t.cache_write));
    if (t.reasoning) extra.push('reasoning ' + num(t.reasoning));
    return extra.length ? s + ' (' + extra.join(', ') + ')' : s;
  }

  // clean drops terminal escape sequences and carriage-return overwrites
  // from tool output, so that it reads as it looked; a line written over
  // starts with the mark ␍ (as in view), so that nothing hides unseen.
  var ansi = /\x1b\[[0-?]*[ -\/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]/g;
  function clean(s) {
    if (!s) return '';
    s = s.replace(ansi, '');
    if (s.indexOf('\r') >= 0) {
      s = s.split('\n').map(function (l) {
        l = l.replace(/\r+$/, '');
        var i = l.lastIndexOf('\r');
        return i >= 0 ? '\u240d' + l.slice(i + 1) : l;
      }).join('\n');
    }
    return s;
  }

  // ---- Markdown: a small, safe subset, built as DOM nodes ----

  function safeHref(u) {
    u = u.trim();
    if (/^(https?:\/\/|mailto:)/i.test(u)) return u;
    if (/^#[\w-]*$/.test(u)) return u;
    return null;
  }

  var inlineRe = /(`+)([\s\S]*?[^`])\1(?!`)|\*\*(?=\S)([\s\S]*?\S)\*\*|__(?=\S)([\s\S]*?\S)__|\*(?=[^\s*])([\s\S]*?[^\s*])\*(?!\*)|~~(?=\S)([\s\S]*?\S)~~|!\[([^\]\n]*)\]\(([^)\n]*)\)|\[([^\]\n]+)\]\(([^)\s]*)(?:\s+"[^"\n]*")?\)|(https?:\/\/[^\s<>()\[\]]*[^\s<>()\[\].,;:!?'"*_])/g;

  function inline(text, parent, depth) {
    depth = depth || 0;
    if (depth > 6) { parent.appendChild(document.createTextNode(text)); return; }
    var re = new RegExp(inlineRe.source, 'g'), last = 0, m;
    while ((m = re.exec(text))) {
      if (m.index > last) parent.appendChild(document.createTextNode(text.slice(last, m.index)));
      last = re.lastIndex;
      if (m[1]) {
        var c = m[2];
        if (/^ .* $/.test(c)) c = c.slice(1, -1);
        parent.appendChild(el('code', null, c));
      } else if (m[3] !== undefined || m[4] !== undefined) {
        var b = el('strong'); inline(m[3] !== undefined ? m[3] : m[4], b, depth + 1); parent.appendChild(b);
      } else if (m[5] !== undefined) {
        var i = el('em'); inline(m[5], i, depth + 1); parent.appendChild(i);
      } else if (m[6] !== undefined) {
        var d = el('del'); inline(m[6], d, depth + 1); parent.appendChild(d);
      } else if (m[8] !== undefined) {
        parent.appendChild(image(m[7], m[8]));
      } else if (m[9] !== undefined) {
        var href = safeHref(m[10]);
        var a = el(href ? 'a' : 'span');
        if (href) { a.href = href; a.rel = 'noopener noreferrer nofollow'; a.target = '_blank'; a.title = href; }
        inline(m[9], a, depth + 1);
        parent.appendChild(a);
        if (!href && m[10]) parent.appendChild(document.createTextNode(' (' + m[10] + ')'));
      } else if (m[11] !== undefined) {
        var u = el('a', null, m[11]);
        u.href = m[11]; u.rel = 'noopener noreferrer nofollow'; u.target = '_blank';
        parent.appendChild(u);
      }
    }
    if (last < text.length) parent.appendChild(document.createTextNode(text.slice(last)));
  }

  // image is a Markdown image: never loaded (the page makes no requests).
  // An image the dialog itself holds (a data: URL of a raster type) is
  // drawn; the policy allows data: images and nothing else.
  function image(alt, url) {
    url = url.trim();
    if (/^data:image\/(png|jpeg|gif|webp);base64,[A-Za-z0-9+\/]+=*$/.test(url) && url.length <= MAX_IMAGE_URL) {
      var img = el('img', 'md-img');
      img.alt = alt || 'image';
      img.decoding = 'async';
      img.src = url;
      return img;
    }
    if (/^data:image\//.test(url)) {
      return el('span', 'img', '[image: ' + (alt || 'data') + ', ' + num(url.length) + ' characters of data: URL' + (url.length > MAX_IMAGE_URL ? ', too big to show' : ', not a PNG, JPEG, GIF or WebP') + ']');
    }
    return el('span', 'img', '[image: ' + (alt || url) + ']');
  }

  // withImages is folded plain text (a tool's result, a prompt) in which
  // each image the dialog carries (a Markdown image with a data: URL, on
  // its own paragraph: see docs/dialog.md) is drawn as an image; the text
  // around is plain, as without images.
  var dataImageRe = /!\[([^\]\n]*)\]\((data:image\/[^)\s]*)\)/g;
  function withImages(text, cls, full) {
    if (text.indexOf('](data:image/') < 0) return folded(text, cls, full);
    var box = el('div', 'with-img'), last = 0, m, re = new RegExp(dataImageRe.source, 'g');
    while ((m = re.exec(text))) {
      var before = text.slice(last, m.index).replace(/\n+$/, '');
      if (before) box.appendChild(folded(before, cls, full));
      var p = el('p', 'img-p');
      p.appendChild(image(m[1], m[2]));
      box.appendChild(p);
      last = re.lastIndex;
    }
    var after = text.slice(last).replace(/^\n+/, '');
    if (after) box.appendChild(folded(after, cls, full));
    return box;
  }

  var fenceRe = /^ {0,3}(`{3,}|~{3,})\s*([^`\s]*)/;
  var headRe = /^ {0,3}(#{1,6})[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$/;
  var hrRe = /^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$/;
  var quoteRe = /^ {0,3}> ?/;
  var itemRe = /^([ \t]*)([-*+]|\d{1,9}[.)])[ \t]+(.*)$/;
  var tableSepRe = /^\s*\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?\s*$/;

  function blockStart(line, next) {
    return fenceRe.test(line) || headRe.test(line) || hrRe.test(line) || quoteRe.test(line) || itemRe.test(line) ||
      (line.indexOf('|') >= 0 && next !== undefined && tableSepRe.test(next));
  }

  function cells(line) {
    line = line.trim().replace(/^\|/, '').replace(/\|$/, '');
    return line.split('|').map(function (c) { return c.trim(); });
  }

  function markdown(src, parent, depth) {
    depth = depth || 0;
    var lines = src.replace(/\r\n?/g, '\n').split('\n');
    var i = 0, m;
    while (i < lines.length) {
      var line = lines[i];
      if (/^\s*$/.test(line)) { i++; continue; }
      if (depth > 8) { parent.appendChild(el('p', 'plain', lines.slice(i).join('\n'))); return; }
      if ((m = fenceRe.exec(line))) {
        var fence = m[1], body = [];
        i++;
        while (i < lines.length && !(lines[i].trim().indexOf(fence) === 0 && /^\s*(`{3,}|~{3,})\s*$/.test(lines[i]))) body.push(lines[i++]);
        i++;
        var pre = el('pre'), code = body.join('\n'), box = el('div', 'code');
        pre.appendChild(el('code', null, code));
        box.appendChild(copyButton(code, 'code'));
        box.appendChild(pre);
        parent.appendChild(box);
        continue;
      }
      if ((m = headRe.exec(line))) {
        var h = el('h' + Math.min(6, m[1].length + 2));
        inline(m[2], h);
        parent.appendChild(h);
        i++;
        continue;
      }
      if (hrRe.test(line)) { parent.appendChild(el('hr')); i++; continue; }
      if (quoteRe.test(line)) {
        var q = [];
        while (i < lines.length && quoteRe.test(lines[i])) q.push(lines[i++].replace(quoteRe, ''));
        var bq = el('blockquote');
        markdown(q.join('\n'), bq, depth + 1);
        parent.appendChild(bq);
        continue;
      }
      if ((m = itemRe.exec(line))) {
        var indent = m[1].length, ordered = /\d/.test(m[2]);
        var list = el(ordered ? 'ol' : 'ul');
        if (ordered && parseInt(m[2], 10) !== 1) list.start = parseInt(m[2], 10);
        while (i < lines.length) {
          var im = itemRe.exec(lines[i]);
          if (!im || im[1].length !== indent || /\d/.test(im[2]) !== ordered) break;
          var itemLines = [im[3]];
          i++;
          while (i < lines.length) {
            var l = lines[i];
            if (/^\s*$/.test(l)) {
              if (i + 1 < lines.length && /^\s+\S/.test(lines[i + 1]) && lines[i + 1].search(/\S/) > indent) { itemLines.push(''); i++; continue; }
              break;
            }
            var sub = itemRe.exec(l);
            if (sub && sub[1].length <= indent) break;
            if (!sub && !/^\s/.test(l) && blockStart(l, lines[i + 1])) break;
            itemLines.push(l.replace(/^\s{1,8}/, function (ws) { return ws.slice(Math.min(ws.length, indent + 2)); }));
            i++;
          }
          var li = el('li');
          if (itemLines.length === 1) inline(itemLines[0], li);
          else markdown(itemLines.join('\n'), li, depth + 1);
          list.appendChild(li);
        }
        parent.appendChild(list);
        continue;
      }
      if (line.indexOf('|') >= 0 && i + 1 < lines.length && tableSepRe.test(lines[i + 1])) {
        var table = el('table'), thead = el('thead'), tr = el('tr');
        cells(line).forEach(function (c) { var th = el('th'); inline(c, th); tr.appendChild(th); });
        thead.appendChild(tr);
        table.appendChild(thead);
        var tbody = el('tbody');
        i += 2;
        while (i < lines.length && lines[i].indexOf('|') >= 0 && !/^\s*$/.test(lines[i])) {
          var row = el('tr');
          cells(lines[i++]).forEach(function (c) { var td = el('td'); inline(c, td); row.appendChild(td); });
          tbody.appendChild(row);
        }
        table.appendChild(tbody);
        parent.appendChild(table);
        continue;
      }
      var para = [line];
      i++;
      while (i < lines.length && !/^\s*$/.test(lines[i]) && !blockStart(lines[i], lines[i + 1])) para.push(lines[i++]);
      var p = el('p');
      inline(para.join('\n'), p);
      parent.appendChild(p);
    }
  }

  // ---- blocks ----

  // folded shows the first lines of a long text with a button for the rest.
  function folded(text, cls, full) {
    var pre = el('pre', cls);
    var lines = 1, cut = -1;
    for (var k = 0; k < text.length; k++) {
      if (text.charCodeAt(k) === 10) {
        lines++;
        if (lines === FOLD_LINES + 1 && cut < 0) cut = k;
      }
    }
    if (cut < 0 && text.length > FOLD_CHARS) cut = FOLD_CHARS;
    if (cut > FOLD_CHARS) cut = FOLD_CHARS;
    if (full || cut < 0) { pre.textContent = text; return pre; }
    pre.textContent = text.slice(0, cut);
    var shownLines = text.slice(0, cut).split('\n').length;
    var rest = lines - shownLines;
    var wrap = el('div', 'fold');
    var more = el('button', 'more', rest > 0 ? 'show all · ' + num(rest) + ' more lines' : 'show all · ' + num(text.length - cut) + ' more characters');
    more.type = 'button';
    more.addEventListener('click', function () { pre.textContent = text; more.remove(); });
    wrap.appendChild(pre);
    wrap.appendChild(more);
    return wrap;
  }

  function diffBlock(f) {
    var box = el('div', 'diff');
    var head = el('div', 'file mono');
    head.appendChild(document.createTextNode((f.k ? f.k + ' ' : '') + (f.p || '(file)') + '  '));
    if (f.l && f.l.length) { // Codex's changes name files without their text
      head.appendChild(el('span', 'add', '+' + f.a));
      head.appendChild(document.createTextNode(' '));
      head.appendChild(el('span', 'del', '−' + f.r));
    }
    box.appendChild(head);
    if (f.l && f.l.length) {
      var pre = el('pre');
      var max = Math.min(f.l.length, 400);
      for (var k = 0; k < max; k++) {
        var op = f.l[k][0], t = f.l[k][1];
        var cls = op === '+' ? 'ln a' : op === '-' ? 'ln d' : op === '@' ? 'ln h' : 'ln';
        pre.appendChild(el('span', cls, op === '@' ? t : op + ' ' + t));
      }
      if (f.l.length > max) pre.appendChild(el('span', 'ln h', '… ' + num(f.l.length - max) + ' more diff lines'));
      box.appendChild(pre);
    }
    return box;
  }

  function kv(pairs) {
    var dl = el('dl', 'kv');
    pairs.forEach(function (p) {
      if (p[1] === undefined || p[1] === null || p[1] === '') return;
      dl.appendChild(el('dt', null, p[0]));
      dl.appendChild(el('dd', null, p[1]));
    });
    return dl;
  }

  function fillBody(i, full) {
    var n = nodes[i], s = shells[i];
    var bd = s.querySelector(':scope > .bd');
    bd.textContent = '';
    // A subagent's call shows its result after the subagent's entries.
    var end = n.kc ? s.querySelector(':scope > .end') : bd;
    end.textContent = '';
    switch (n.k) {
      case 'message':
        var md = el('div', 'md');
        markdown(n.c || '', md);
        bd.appendChild(md);
        break;
      case 'prompt':
      case 'thinking':
      case 'other':
        if (n.c) {
          var f = n.k === 'prompt' ? withImages(n.c, 'plain', full) : folded(n.c, 'plain', full);
          if (f.tagName === 'PRE') f.className = 'plain';
          bd.appendChild(f);
        }
        break;
      case 'init':
        if (n.in) bd.appendChild(kv([['task', n.in.task], ['agent', n.in.agent], ['model', n.in.model], ['cwd', n.in.cwd]]));
        break;
      case 'complete':
        var sm = data.summary;
        bd.appendChild(kv([['status', (n.st || '') + (n.rn ? ' (' + n.rn + ')' : '')], ['message', n.c], ['turns', String(sm.turns)],
          ['duration', ms(sm.duration_ms)], ['tokens', tokens(sm.tokens)], ['cost', sm.cost_usd !== undefined ? '$' + sm.cost_usd.toFixed(4) : ''],
          ['warnings', sm.warnings ? String(sm.warnings) : '']]));
        break;
      case 'tool':
        if (n.df) n.df.forEach(function (f) { bd.appendChild(diffBlock(f)); });
        if (n.a !== undefined) {
          // The head shows the args on one line; the whole is a click away.
          var json = JSON.stringify(n.a, null, 2);
          var det = el('details', 'args'), summ = el('summary', null, 'args · ' + num(json.split('\n').length) + ' lines ');
          summ.appendChild(copyButton(json, 'args'));
          det.appendChild(summ);
          det.appendChild(folded(json, 'args', full));
          if (full) det.open = true;
          bd.appendChild(det);
        }
        if (n.r !== undefined && n.r !== '') {
          var rl = el('div', 'label', n.kc ? n.n + ' result ' : 'result ');
          var rtext = clean(n.r);
          rl.appendChild(copyButton(rtext, 'result'));
          end.appendChild(rl);
          if (n.kc) {
            // A subagent answers in Markdown, as an assistant message does.
            var rmd = el('div', 'md result');
            markdown(rtext, rmd);
            end.appendChild(rmd);
          } else {
            end.appendChild(withImages(rtext, 'result', full));
          }
        } else if (n.r === '' && n.e === undefined) {
          end.appendChild(el('div', 'label', 'result: (empty)'));
        }
        if (n.e !== undefined) {
          var el2 = el('div', 'label err', 'error '), etext = clean(n.e);
          el2.appendChild(copyButton(etext, 'error'));
          end.appendChild(el2);
          end.appendChild(withImages(etext, 'error', full));
        }
        if (n.st === 'running') end.appendChild(el('div', 'label', 'no result yet'));
        break;
    }
    filled[i] = full ? 2 : 1;
    if (query && hitSet.has(i)) highlight(s);
  }

  // ---- what each entry shows beside itself ----

  // innerErr[i]: failed entries under node i (a subagent's call shows its
  // worst status, not only its own). depth[i]: how deep it is nested.
  // turnMs[i]: for an assistant message, the time from its thread's last
  // input before it (the prompt, a tool's result, or for a subagent the
  // call that started it) to the message, when the timestamps say it.
  var innerErr = new Int32Array(nodes.length), depth = new Uint8Array(nodes.length), turnMs = new Array(nodes.length);
  (function analyse() {
    var lastInput = new Map(); // thread (parent index) -> time in ms
    for (var i = 0; i < nodes.length; i++) {
      var n = nodes[i];
      if (n.p >= 0) depth[i] = Math.min(250, depth[n.p] + 1);
      if (n.x) for (var p = n.p; p >= 0; p = nodes[p].p) innerErr[p]++;
      if (!n.at || !n.t) continue; // a time not shown is not used either
      var last = lastInput.get(n.p);
      if (n.k === 'message' && !n.w && last !== undefined && n.at >= last) turnMs[i] = n.at - last;
      var input = n.k === 'prompt' ? n.at : n.k === 'tool' && n.du !== undefined ? n.at + n.du : -1;
      if (input >= 0 && (last === undefined || input > last)) lastInput.set(n.p, input);
      if (n.kc) lastInput.set(i, n.at);
    }
  })();

  var kindLabel = { init: '● session', prompt: '▶ prompt', message: '◆ assistant', thinking: '✱ thinking', tool: '⚙', complete: '■ end', other: '? ' };

  function header(n, i) {
    var hd = el('div', 'hd');
    // A screen reader moves by headings: one per entry, nested as the
    // entries are (the page's title is the only h1).
    hd.setAttribute('role', 'heading');
    hd.setAttribute('aria-level', String(Math.min(6, depth[i] + 2)));
    hd.appendChild(el('span', 'time mono', n.t || ''));
    hd.appendChild(el('span', 'delta', n.dt !== undefined && n.dt > 0 ? '+' + ms(n.dt) : ''));
    if (n.k === 'tool') {
      hd.appendChild(el('span', 'kind', n.st === 'error' ? '✗' : n.st === 'success' ? '✓' : '…'));
      hd.appendChild(el('span', 'name', n.n || '(tool)'));
      if (n.sm) { var sum = el('span', 'sum mono', n.sm); sum.title = n.sm.slice(0, 500); hd.appendChild(sum); }
      if (innerErr[i] && !n.x) {
        // The worst status inside the call, beside its own.
        var worst = el('span', 'badge st-error', (n.st || 'running') + ' · ' + num(innerErr[i]) + (innerErr[i] === 1 ? ' error inside' : ' errors inside'));
        worst.title = 'the call itself: ' + (n.st || 'running') + '; entries under it failed';
        hd.appendChild(worst);
      } else {
        hd.appendChild(el('span', 'badge st-' + (n.st === 'error' || n.st === 'success' ? n.st : 'running'), n.st || 'running'));
      }
      if (n.du !== undefined) hd.appendChild(el('span', 'dur', ms(n.du)));
    } else {
      var label = n.k === 'message' && n.w ? '⚠ warning' : kindLabel[n.k] || n.k;
      hd.appendChild(el('span', 'kind', n.k === 'other' ? '? ' + (n.n || 'entry') : label));
      if (n.k === 'complete') hd.appendChild(el('span', 'badge st-' + (n.st === 'success' || n.st === 'error' || n.st === 'timeout' ? n.st : 'error'), n.st || ''));
      if (n.k === 'init' && n.in) hd.appendChild(el('span', 'sum', [n.in.agent, n.in.model].filter(Boolean).join(' · ')));
      if (n.tk) {
        var tok = el('span', 'tok', tokens(n.tk));
        tok.title = 'this response\'s tokens: ↓ in (the context it was given: uncached, cache reads and writes), ↑ out (reasoning included)';
        hd.appendChild(tok);
      }
      if (turnMs[i] !== undefined) {
        var took = el('span', 'dur turn', 'took ' + ms(turnMs[i]));
        took.title = 'time from this thread\'s last input (the prompt, a tool\'s result, the subagent\'s call) to this message';
        hd.appendChild(took);
      }
    }
    if (n.kc) {
      var t = el('button', 'toggle', '▾ ' + num(n.kc) + ' subagent entr' + (n.kc === 1 ? 'y' : 'ies'));
      t.type = 'button';
      t.addEventListener('click', function () { toggle(t.closest('.entry')); });
      hd.appendChild(t);
    }
    var link = el('a', 'link', '#' + n.s);
    link.href = '#seq-' + n.s;
    link.title = 'permalink to this entry';
    hd.appendChild(link);
    return hd;
  }

  function toggle(s, collapse) {
    var c = collapse === undefined ? !s.classList.contains('collapsed') : collapse;
    s.classList.toggle('collapsed', c);
    var t = s.querySelector(':scope > .hd > .toggle');
    if (t) {
      var n = nodes[+s.dataset.i];
      t.textContent = (c ? '▸ ' : '▾ ') + num(n.kc) + ' subagent entr' + (n.kc === 1 ? 'y' : 'ies');
    }
  }

  // Blocks are grouped in pages of PAGE top-level blocks; the observer
  // watches pages, not blocks (one target per block makes every frame cost
  // as much as the whole dialog), and fills a page's blocks when it nears
  // the viewport.
  var PAGE = 100;
  var pages = [], pageOf = [], topCount = 0;
  var observer = 'IntersectionObserver' in window ? new IntersectionObserver(function (entries) {
    entries.forEach(function (e) {
      if (!e.isIntersecting) return;
      observer.unobserve(e.target);
      e.target.pageNodes.forEach(function (i) { if (!filled[i]) fillBody(i, query && hitSet.has(i)); });
    });
  }, { rootMargin: '1500px 0px' }) : null;

  function pageFor(i) {
    var n = nodes[i];
    if (n.p >= 0) return pageOf[n.p];
    if (topCount++ % PAGE === 0) {
      var pg = el('div', 'page');
      pg.pageNodes = [];
      pages.push(pg);
      root.appendChild(pg);
      if (observer) observer.observe(pg);
    }
    return pages.length - 1;
  }

  function shell(i) {
    var n = nodes[i];
    var cls = 'entry k-' + n.k;
    if (n.x) cls += ' err';
    if (n.hx) cls += ' has-err';
    if (n.kc) cls += ' has-kids';
    if (n.w) cls += ' warn';
    var s = el(n.p < 0 ? 'article' : 'div', cls);
    s.id = 'seq-' + n.s;
    s.dataset.i = i;
    s.dataset.seq = n.rs !== undefined ? n.s + ' ' + n.rs : String(n.s);
    s.appendChild(header(n, i));
    if (n.rs !== undefined) {
      // The result's own permalink lands on the merged call.
      var anchor = el('span', 'anchor');
      anchor.id = 'seq-' + n.rs;
      s.appendChild(anchor);
    }
    s.appendChild(el('div', 'bd'));
    if (n.kc) {
      s.kids = el('div', 'kids');
      s.appendChild(s.kids);
      s.appendChild(el('div', 'bd end'));
    }
    return s;
  }

  function buildTo(end) {
    end = Math.min(end, nodes.length);
    for (var i = built; i < end; i++) {
      var n = nodes[i], s = shell(i);
      shells[i] = s;
      bySeq.set(n.s, i);
      if (n.rs !== undefined) bySeq.set(n.rs, i);
      var pg = pageFor(i);
      pageOf[i] = pg;
      pages[pg].pageNodes.push(i);
      (n.p < 0 ? pages[pg] : shells[n.p].kids).appendChild(s);
      if (!observer) fillBody(i, false);
      if (hideKids && n.kc) toggle(s, true);
    }
    built = end;
    if (built === nodes.length) document.body.setAttribute('data-state', 'ready');
  }

  function buildAll() { if (built < nodes.length) buildTo(nodes.length); }

  function buildRest() {
    if (built >= nodes.length) return;
    buildTo(built + CHUNK);
    setTimeout(buildRest, 0);
  }

  // ---- header ----

  function setHead() { document.documentElement.style.setProperty('--head', (document.getElementById('top').offsetHeight + 8) + 'px'); }

  function drawHeader() {
    var sm = data.summary, init = data.init || {};
    document.getElementById('title').textContent = data.title;
    var meta = [];
    if (init.task) meta.push('task ' + init.task);
    if (init.agent) meta.push(init.agent);
    if (init.model) meta.push(init.model);
    if (init.cwd) meta.push(init.cwd);
    if (sm.start) meta.push(sm.start);
    if (data.source) meta.push('from ' + data.source);
    document.getElementById('meta').textContent = meta.join(' · ');
    var st = document.getElementById('stats');
    function stat(label, value, cls) {
      if (value === '' || value === undefined) return;
      if (st.childNodes.length) st.appendChild(document.createTextNode(' · '));
      var b = el('b', cls, value);
      st.appendChild(b);
      if (label) st.appendChild(document.createTextNode(' ' + label));
    }
    var badge = el('span', 'badge st-' + (/^(success|error|timeout|running)$/.test(sm.status) ? sm.status : 'error'), sm.status + (sm.reason ? ' (' + sm.reason + ')' : ''));
    st.appendChild(badge);
    var pl = function (n, one, many) { return n === 1 ? one : many; };
    stat(pl(sm.turns, 'turn', 'turns'), num(sm.turns));
    stat('', ms(sm.duration_ms));
    stat('tokens', sm.tokens ? tokens(sm.tokens) : '');
    stat('', sm.cost_usd !== undefined ? '$' + sm.cost_usd.toFixed(4) : '');
    stat(pl(sm.tools, 'tool call', 'tool calls'), num(sm.tools));
    stat(pl(sm.errors, 'tool error', 'tool errors'), num(sm.errors), sm.errors ? 'err' : '');
    if (sm.warnings) stat(pl(sm.warnings, 'warning', 'warnings'), num(sm.warnings));
    stat(pl(sm.entries, 'entry', 'entries'), num(sm.entries));
    if (data.skipped) stat('lines skipped (not JSON)', num(data.skipped), 'err');
    // The messages' own figures, where the dialog gives them: their sum
    // (it may be less than the totals, never more), and the largest
    // context one response was given.
    var per = { in: 0, out: 0, cache_read: 0, cache_write: 0, reasoning: 0 }, counted = 0, peak = 0;
    nodes.forEach(function (n) {
      if (!n.tk) return;
      counted++;
      for (var k in per) per[k] += n.tk[k] || 0;
      peak = Math.max(peak, n.tk.in || 0);
    });
    if (counted) {
      stat('tokens summed over ' + num(counted) + (counted === 1 ? ' message' : ' messages'), tokens(per));
      stat('tokens largest context', num(peak));
    }
    setHead();
    window.addEventListener('resize', setHead);
  }

  // ---- search ----

  function textOf(n) {
    var parts = [n.c, n.n, n.sm, n.r, n.e, n.st, n.rn, n.t];
    if (n.a !== undefined) parts.push(JSON.stringify(n.a, null, 1));
    if (n.in) parts.push(n.in.task, n.in.agent, n.in.model, n.in.cwd);
    if (n.df) n.df.forEach(function (f) { parts.push(f.p); (f.l || []).forEach(function (l) { parts.push(l[1]); }); });
    var all = parts.filter(function (p) { return p; }).join('\n');
    // An image's base64 is not text to find: its alt text is.
    if (all.indexOf('](data:image/') >= 0) all = all.replace(new RegExp(dataImageRe.source, 'g'), '[image $1]');
    return all.toLowerCase();
  }

  function highlight(s) {
    if (!query) return;
    Array.prototype.forEach.call(s.querySelectorAll(':scope > .hd, :scope > .bd'), function (box) {
      if (!box) return;
      var walker = document.createTreeWalker(box, NodeFilter.SHOW_TEXT), list = [], t;
      while ((t = walker.nextNode())) if (t.parentNode.nodeName !== 'MARK' && t.parentNode.nodeName !== 'BUTTON') list.push(t);
      list.forEach(function (tn) {
        var text = tn.nodeValue, low = text.toLowerCase(), at = low.indexOf(query);
        if (at < 0) return;
        var frag = document.createDocumentFragment(), last = 0;
        while (at >= 0) {
          frag.appendChild(document.createTextNode(text.slice(last, at)));
          frag.appendChild(el('mark', null, text.slice(at, at + query.length)));
          last = at + query.length;
          at = low.indexOf(query, last);
        }
        frag.appendChild(document.createTextNode(text.slice(last)));
        tn.parentNode.replaceChild(frag, tn);
      });
    });
  }

  function unhighlight(s) {
    var hd = s.querySelector(':scope > .hd');
    hd.parentNode.replaceChild(header(nodes[+s.dataset.i], +s.dataset.i), hd);
  }

  function search(q) {
    q = q.trim().toLowerCase();
    if (q === query) return;
    var old = hits;
    query = q;
    old.forEach(function (i) {
      var s = shells[i];
      s.classList.remove('hit');
      unhighlight(s);
      if (filled[i]) fillBody(i, false);
    });
    Array.prototype.forEach.call(root.querySelectorAll('.hit-anc'), function (s) { s.classList.remove('hit-anc'); });
    hits = []; hitSet = new Set(); hitPos = -1;
    var count = document.getElementById('search-count');
    if (!q) { root.classList.remove('searching'); count.textContent = ''; return; }
    buildAll();
    if (!hay) hay = new Array(nodes.length);
    for (var i = 0; i < nodes.length; i++) {
      if (hay[i] === undefined) hay[i] = textOf(nodes[i]);
      if (hay[i].indexOf(q) >= 0) { hits.push(i); hitSet.add(i); }
    }
    hits.forEach(function (i) {
      var s = shells[i];
      s.classList.add('hit');
      highlight(s);
      if (filled[i]) fillBody(i, true);
      for (var p = nodes[i].p; p >= 0; p = nodes[p].p) {
        shells[p].classList.add('hit-anc');
        toggle(shells[p], false);
      }
    });
    root.classList.add('searching');
    count.textContent = hits.length ? num(hits.length) + (hits.length === 1 ? ' entry' : ' entries') : 'no match';
    if (hits.length) { hitPos = 0; go(hits[0]); }
  }

  // ---- navigation ----

  function visible(i) { return shells[i] && shells[i].getClientRects().length > 0; }

  function go(i, noHash) {
    if (i < 0 || i >= nodes.length) return;
    if (i >= built) buildTo(i + 1);
    for (var p = nodes[i].p; p >= 0; p = nodes[p].p) if (shells[p].classList.contains('collapsed')) toggle(shells[p], false);
    if (!filled[i]) fillBody(i, query && hitSet.has(i));
    if (cur >= 0 && shells[cur]) shells[cur].classList.remove('cur');
    cur = i;
    shells[i].classList.add('cur');
    shells[i].scrollIntoView({ block: 'start' });
    if (!noHash && history.replaceState) history.replaceState(null, '', '#seq-' + nodes[i].s);
  }

  function step(dir) {
    buildTo(Math.max(built, cur + 200));
    for (var i = cur + dir; i >= 0 && i < nodes.length; i += dir) {
      if (i >= built) buildTo(i + CHUNK);
      if (visible(i)) { go(i); return; }
    }
  }

  function fromHash() {
    var m = /^#seq-(\d+)$/.exec(location.hash);
    if (!m) return;
    var seq = +m[1];
    if (!bySeq.has(seq)) buildAll();
    if (bySeq.has(seq)) go(bySeq.get(seq), true);
  }

  // ---- filters ----

  var hideKids = false;

  function wire() {
    [['f-message', 'hide-message'], ['f-thinking', 'hide-thinking'], ['f-tool', 'hide-tool']].forEach(function (f) {
      var box = document.getElementById(f[0]);
      var apply = function () { root.classList.toggle(f[1], !box.checked); };
      box.addEventListener('change', apply);
      apply();
    });
    var errs = document.getElementById('f-errors');
    var applyErr = function () {
      root.classList.toggle('only-errors', errs.checked);
      if (!errs.checked) return;
      // An error inside a subagent is shown: its callers open.
      buildAll();
      for (var i = 0; i < nodes.length; i++) {
        if (!nodes[i].x) continue;
        for (var p = nodes[i].p; p >= 0; p = nodes[p].p) if (shells[p].classList.contains('collapsed')) toggle(shells[p], false);
      }
    };
    errs.addEventListener('change', applyErr);
    applyErr();
    var sub = document.getElementById('toggle-subagents');
    sub.addEventListener('click', function () {
      hideKids = !hideKids;
      for (var i = 0; i < built; i++) if (nodes[i].kc) toggle(shells[i], hideKids);
      sub.textContent = hideKids ? 'expand subagents' : 'collapse subagents';
    });
    var box = document.getElementById('search'), timer = 0;
    box.addEventListener('input', function () {
      clearTimeout(timer);
      timer = setTimeout(function () { search(box.value); }, box.value.length > 2 ? 150 : 400);
    });
    box.addEventListener('keydown', function (e) {
      if (e.key === 'Enter') {
        e.preventDefault();
        clearTimeout(timer);
        if (box.value.trim().toLowerCase() !== query) { search(box.value); return; }
        if (hits.length) { hitPos = (hitPos + (e.shiftKey ? hits.length - 1 : 1)) % hits.length; go(hits[hitPos]); }
      } else if (e.key === 'Escape') {
        box.value = '';
        search('');
        box.blur();
      }
    });
    document.addEventListener('keydown', function (e) {
      if (e.ctrlKey || e.metaKey || e.altKey) return;
      var t = e.target;
      if (t && (t.tagName === 'INPUT' || t.tagName === 'TEXTAREA')) return;
      if (e.key === 'j') { e.preventDefault(); step(1); }
      else if (e.key === 'k') { e.preventDefault(); step(-1); }
      else if (e.key === '/') { e.preventDefault(); box.focus(); box.select(); }
      else if (e.key === 'Escape' && query) { box.value = ''; search(''); }
    });
    window.addEventListener('hashchange', fromHash);
    wireSelects();
    wireNav();
    var top = document.getElementById('top'), moreTools = document.getElementById('more-tools');
    moreTools.addEventListener('click', function () {
      var open = !top.classList.contains('open');
      top.classList.toggle('open', open);
      moreTools.setAttribute('aria-expanded', String(open));
      setHead();
    });
    // Printing (or saving as PDF) gives every entry in full: the bodies
    // not drawn yet are drawn, folds and args opened, subagents expanded.
    window.addEventListener('beforeprint', printAll);
    if (window.matchMedia) {
      var mq = window.matchMedia('print');
      var onPrint = function (e) { if (e.matches) printAll(); };
      if (mq.addEventListener) mq.addEventListener('change', onPrint); else if (mq.addListener) mq.addListener(onPrint);
    }
  }

  var printed = false;
  function printAll() {
    if (printed) return;
    printed = true;
    buildAll();
    for (var i = 0; i < nodes.length; i++) {
      if (filled[i] !== 2) fillBody(i, true);
      if (nodes[i].kc && shells[i].classList.contains('collapsed')) toggle(shells[i], false);
    }
    Array.prototype.forEach.call(root.querySelectorAll('details'), function (d) { d.open = true; });
    document.body.setAttribute('data-printed', 'true');
  }

  // ---- filters by tool name and by subagent ----

  // The chosen entries get .sel, their callers .sel-anc (shown as a head
  // line for context); #timeline.filtering hides the rest.
  var selName = '', selSub = -1, selected = [];
  function applySelection() {
    selected.forEach(function (i) { shells[i].classList.remove('sel', 'sel-anc'); });
    selected = [];
    var on = selName !== '' || selSub >= 0;
    root.classList.toggle('filtering', on);
    if (!on) return;
    buildAll();
    var lo = 0, hi = nodes.length;
    if (selSub >= 0) { lo = selSub; hi = selSub + 1 + (nodes[selSub].kc || 0); }
    for (var i = lo; i < hi; i++) {
      var n = nodes[i];
      if (selName !== '' && !(n.k === 'tool' && n.n === selName)) continue;
      shells[i].classList.add('sel');
      selected.push(i);
      for (var p = n.p; p >= 0; p = nodes[p].p) {
        if (!shells[p].classList.contains('sel-anc')) { shells[p].classList.add('sel-anc'); selected.push(p); }
        if (shells[p].classList.contains('collapsed')) toggle(shells[p], false);
      }
    }
    if (selSub >= 0) go(selSub, true);
  }

  function wireSelects() {
    var names = new Map(), subs = [];
    nodes.forEach(function (n, i) {
      if (n.k === 'tool') names.set(n.n || '', (names.get(n.n || '') || 0) + 1);
      if (n.kc) subs.push(i);
    });
    var nameBox = document.getElementById('f-name'), subBox = document.getElementById('f-sub');
    Array.from(names.keys()).sort(function (a, b) { return names.get(b) - names.get(a) || (a < b ? -1 : 1); }).forEach(function (name) {
      var o = el('option', null, (name || '(no name)') + ' · ' + num(names.get(name)));
      o.value = name;
      nameBox.appendChild(o);
    });
    subs.forEach(function (i) {
      var n = nodes[i], what = '';
      if (n.a && typeof n.a === 'object') what = n.a.description || n.a.subagent_type || '';
      if (!what) what = n.sm || '';
      var o = el('option', null, (n.n || 'subagent') + (what ? ': ' + String(what).slice(0, 60) : '') + ' (#' + n.s + ', ' + num(n.kc) + ' entries)');
      o.value = String(i);
      subBox.appendChild(o);
    });
    if (!subs.length) subBox.disabled = true;
    nameBox.addEventListener('change', function () { selName = nameBox.value; applySelection(); });
    subBox.addEventListener('change', function () { selSub = subBox.value === '' ? -1 : +subBox.value; applySelection(); });
  }

  // ---- prompts and timeline ----

  function wireNav() {
    var nav = document.getElementById('nav'), btn = document.getElementById('nav-btn');
    var list = document.getElementById('prompts'), drawn = false;
    var count = 0;
    nodes.forEach(function (n, i) {
      if (n.k !== 'prompt') return;
      count++;
      var li = el('li'), b = el('button', 'jump');
      b.type = 'button';
      b.appendChild(el('span', 'time mono', n.t || ''));
      b.appendChild(document.createTextNode(' ' + oneLine(n.c || '(empty prompt)', 120)));
      b.addEventListener('click', function () { go(i); });
      li.appendChild(b);
      list.appendChild(li);
    });
    document.getElementById('prompts-head').textContent = count === 1 ? '1 prompt' : num(count) + ' prompts';
    if (!count) list.appendChild(el('li', 'dim', 'no prompt entry in this dialog'));
    function show(open) {
      nav.hidden = !open;
      btn.setAttribute('aria-expanded', String(open));
      document.body.classList.toggle('nav-open', open);
      if (open) { drawLanes(); drawn = true; }
    }
    btn.addEventListener('click', function () { show(nav.hidden); });
    document.addEventListener('keydown', function (e) {
      if (e.ctrlKey || e.metaKey || e.altKey) return;
      var t = e.target;
      if (t && (t.tagName === 'INPUT' || t.tagName === 'TEXTAREA' || t.tagName === 'SELECT')) return;
      if (e.key === 'i') { e.preventDefault(); show(nav.hidden); }
    });
    window.addEventListener('resize', function () { if (drawn && !nav.hidden) drawLanes(); });
  }

  function oneLine(s, max) {
    s = s.replace(/\s+/g, ' ').trim();
    return s.length > max ? s.slice(0, max - 1) + '…' : s;
  }

  // drawLanes draws the timeline: x is time (or order, when an entry has
  // no time), a row per thread, and within a thread a row per tool call
  // running at the same time as an earlier one. The marks are kept on the
  // canvas element (marks) for clicks.
  function drawLanes() {
    var cv = document.getElementById('lanes');
    if (!cv.getContext) return;
    var t0 = Infinity, t1 = -Infinity, timed = true;
    nodes.forEach(function (n) {
      if (!n.at || !n.t) { timed = false; return; }
      t0 = Math.min(t0, n.at);
      t1 = Math.max(t1, n.at + (n.du || 0));
    });
    if (!(t1 > t0)) timed = false;
    var threads = new Map(), order = [], items = [];
    nodes.forEach(function (n, i) {
      var th = threads.get(n.p);
      if (!th) { th = { ends: [0], first: i }; threads.set(n.p, th); order.push(th); }
      var s0 = timed ? (n.at - t0) / (t1 - t0) : i / nodes.length;
      var e0 = timed ? (n.at + (n.k === 'tool' && n.du ? n.du : 0) - t0) / (t1 - t0) : (i + 1) / nodes.length;
      var r = 0;
      if (n.k === 'tool' && timed) {
        while (r < th.ends.length && th.ends[r] > s0) r++;
        th.ends[r] = e0;
      }
      items.push({ i: i, th: th, r: r, s: s0, e: e0 });
    });
    var base = 0;
    order.forEach(function (th) { th.base = base; base += th.ends.length; });
    // Rows get thinner past 600 of them: a canvas has a size limit.
    var ROW = base > 600 ? Math.max(2, Math.floor(7200 / base)) : 12, BAR = Math.max(1, ROW - 4), PAD = 4, dpr = window.devicePixelRatio || 1;
    var w = Math.max(120, cv.clientWidth || 300), h = base * ROW + 2 * PAD;
    cv.width = Math.round(w * dpr);
    cv.height = Math.round(h * dpr);
    cv.style.height = h + 'px';
    var ctx = cv.getContext('2d');
    ctx.scale(dpr, dpr);
    var css = getComputedStyle(document.documentElement);
    var color = function (v) { return css.getPropertyValue(v).trim() || '#888'; };
    var colors = { prompt: color('--accent'), message: color('--ok'), thinking: color('--think'), tool: '#8c959f', bad: color('--bad'), other: color('--dim') };
    ctx.fillStyle = color('--card');
    order.forEach(function (th, k) { if (k % 2) ctx.fillRect(0, PAD + th.base * ROW, w, th.ends.length * ROW); });
    var marks = [];
    var usable = w - 2;
    items.forEach(function (it) {
      var n = nodes[it.i], row = it.th.base + it.r;
      var x0 = 1 + it.s * usable, x1 = Math.max(x0 + 2, 1 + it.e * usable);
      ctx.fillStyle = n.x ? colors.bad : colors[n.k] || colors.other;
      ctx.fillRect(x0, PAD + row * ROW + (ROW - BAR) / 2, x1 - x0, BAR);
      marks.push({ i: it.i, seq: n.s, row: row, x0: x0, x1: x1 });
    });
    cv.marks = marks;
    cv.rowHeight = ROW;
    cv.pad = PAD;
    // The keyboard's mark, outlined: marks in time order, then by row.
    cv.order = marks.slice().sort(function (a, b) { return a.x0 - b.x0 || a.row - b.row; });
    if (cv.kb !== undefined && cv.kb >= 0) {
      var km = cv.order[Math.min(cv.kb, cv.order.length - 1)];
      ctx.strokeStyle = color('--fg');
      ctx.lineWidth = 1.5;
      ctx.strokeRect(km.x0 - 2, PAD + km.row * ROW, km.x1 - km.x0 + 4, ROW);
    }
    if (!cv.wired) {
      cv.wired = true;
      var at = function (e) {
        var rect = cv.getBoundingClientRect(), x = e.clientX - rect.left, y = e.clientY - rect.top;
        var row = Math.floor((y - cv.pad) / cv.rowHeight), best = null, bestD = 7;
        cv.marks.forEach(function (m) {
          if (m.row !== row) return;
          var d = x < m.x0 ? m.x0 - x : x > m.x1 ? x - m.x1 : 0;
          if (d < bestD || (d === 0 && best && m.x1 - m.x0 < best.x1 - best.x0)) { best = m; bestD = d; }
        });
        return best;
      };
      cv.addEventListener('click', function (e) { var m = at(e); if (m) go(m.i); });
      cv.addEventListener('keydown', function (e) {
        var k = cv.kb === undefined ? -1 : cv.kb;
        if (e.key === 'ArrowRight' || e.key === 'ArrowLeft') {
          e.preventDefault();
          cv.kb = Math.max(0, Math.min(cv.order.length - 1, k + (e.key === 'ArrowRight' ? 1 : -1)));
          drawLanes();
          var n = nodes[cv.order[cv.kb].i];
          document.getElementById('lanes-cur').textContent = (n.k === 'tool' ? n.n || 'tool' : n.k) + ' #' + n.s + (n.t ? ' at ' + n.t : '') + (n.du !== undefined ? ', ' + ms(n.du) : '');
        } else if ((e.key === 'Enter' || e.key === ' ') && k >= 0) {
          e.preventDefault();
          go(cv.order[k].i);
        }
      });
      cv.addEventListener('mousemove', function (e) {
        var m = at(e), n = m && nodes[m.i];
        cv.title = n ? (n.k === 'tool' ? n.n || 'tool' : n.k) + ' #' + n.s + (n.t ? ' · ' + n.t : '') + (n.du !== undefined ? ' · ' + ms(n.du) : '') : '';
        cv.style.cursor = m ? 'pointer' : 'default';
      });
    }
  }

  drawHeader();
  wire();
  buildTo(FIRST_CHUNK);
  // The first screen is drawn at once, not on the observer's first call.
  for (var f = 0; f < built; f++) {
    if (!filled[f]) fillBody(f, false);
    if (shells[f].getBoundingClientRect().top > window.innerHeight * 1.5) break;
  }
  if (location.hash) fromHash();
  requestAnimationFrame(function () {
    document.body.setAttribute('data-first-screen', String(Math.round(performance.now())));
    setTimeout(buildRest, 0);
  });
})();
