// check_browser.js: what tests/docs/check_browser.py runs in every page it
// loads, before the page's own scripts (Page.addScriptToEvaluateOnNewDocument):
// it records errors from the start and, once called as
// window.__lockstepCheck(width, course, small), checks the laid-out page and
// returns what it found (JSON). Plain JavaScript, no library.
(function () {
  var found = [];
  window.addEventListener('error', function (e) {
    var t = e.target;
    if (t && t !== window && (t.src || t.href || t.data))
      found.push('did not load: ' + (t.src || t.href || t.data));
    else
      found.push('script error: ' + e.message + ' (' + e.filename + ':' + e.lineno + ')');
  }, true);
  var consoleError = console.error;
  console.error = function () {
    found.push('console.error: ' + Array.prototype.join.call(arguments, ' '));
    consoleError.apply(console, arguments);
  };
  function size(el) { var r = el.getBoundingClientRect(); return [Math.round(r.width), Math.round(r.height)]; }
  function shown(el) { return el.getClientRects().length > 0; }
  function name(el) {
    var id = el.id ? '#' + el.id : '', cls = typeof el.className === 'string' && el.className ? '.' + el.className.trim().split(/\s+/).join('.') : '';
    var near = el.closest('div.litmus, div.trace, h1, h2, h3') || el.previousElementSibling;
    var text = (el.getAttribute('src') || el.getAttribute('alt') || el.textContent || '').trim().replace(/\s+/g, ' ').slice(0, 50);
    return '<' + el.tagName.toLowerCase() + id + cls + '> "' + text + '"';
  }
  // Text a reader sees that is markup nobody rendered. Code (pre, code, the
  // source and diff pages' code, Doxygen's declarations) may hold ** and `.
  var CODE = 'pre, code, tt, kbd, samp, script, style, .fragment, .memItemLeft, .memItemRight, ' +
             '.memname, .memproto, .params, .trace, .src, td.code, #lockstep-check';
  function rawMarkup(out) {
    var walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT), node, seen = 0;
    while ((node = walk.nextNode()) && seen < 8) {
      var el = node.parentElement, t = node.data;
      if (!el || !el.getClientRects().length) continue;
      var what = null, code = el.closest(CODE);
      if (/<\/?tt>/.test(t) && !el.closest('code, pre.src, .diff')) what = 'raw <tt>';
      else if (!code && t.indexOf('**') >= 0) what = 'a literal **';
      else if (!code && t.indexOf('`') >= 0) what = 'a backtick outside code';
      else if (!code && /(^|[\s(])\*[A-Za-z][^*\n]*[A-Za-z.]\*([\s).,;:]|$)/.test(t)) what = 'a literal *emphasis*';
      else if (!code && /\[[^\]\n]+\]\((https?:|\.|#|[\w\/-]+\.(md|html|c|h))/.test(t)) what = 'a literal [text](link)';
      if (what) {
        seen++;
        var at = el.closest('h1, h2, h3, h4, th, td, li, p, div');
        out.push('visible raw markup (' + what + '): "' + (at || el).textContent.trim().slice(0, 90) + '"');
      }
    }
    document.querySelectorAll('code, tt').forEach(function (c) {
      var t = c.textContent;
      if (seen < 8 && !c.closest('pre') && /^`|`$/.test(t) && c.getClientRects().length) {
        seen++;
        out.push('visible raw markup (a backtick inside inline code): "' + t.slice(0, 90) + '"');
      }
    });
  }
  function settled(img) { // an image still loading: wait for it (a busy machine is slow)
    if (img.complete) return Promise.resolve();
    return new Promise(function (done) {
      img.addEventListener('load', done); img.addEventListener('error', done); setTimeout(done, 4000);
    });
  }
  // The box kinds, on the course's pages (the source and diff pages' code
  // scrolls in its box by design: checked there only for the page width).
  var KINDS = [
    ['program table', 'table.litmus-program'],
    ['trace', 'table.trace, div.trace'],
    ['table', 'div.contents table.markdownTable, div.contents table.doxtable, table.litmus-states, table.litmus-summary'],
    ['text block', 'div.contents div.fragment, div.contents pre'],
  ];
  // The box, or the part of it that scrolls (the theme scrolls a table's
  // tbody), holds more than it shows: the scroller, or null.
  function hides(el) {
    if (el.scrollWidth > el.clientWidth + 2) return el;
    var inner = el.querySelectorAll('thead, tbody, div, pre');
    for (var i = 0; i < inner.length; i++) {
      var e = inner[i];
      if (e.scrollWidth > e.clientWidth + 2 && /auto|scroll|hidden/.test(getComputedStyle(e).overflowX)) return e;
    }
    return null;
  }
  // A table's first column stays in view when the table scrolls (its cells
  // are sticky): the reader still sees which row is which.
  function firstColumnStays(table) {
    return firstColumn(table).length > 0;
  }
  // The cells of a table's first column the reader sees, if they are sticky.
  function firstColumn(table) {
    var cells = Array.prototype.filter.call(table.querySelectorAll('tr > :first-child'), shown);
    return cells.length && getComputedStyle(cells[0]).position === 'sticky' ? cells : [];
  }
  // A table cell's text as one string, with where each character lies
  // (text node, offset); a long name's break point (an empty <small> that
  // lockstep_site/prep.py puts after a dot, an underscore, a slash, a ::, a
  // < or a () is a \u200b there, lying nowhere. A break point anywhere else
  // is a problem.
  // (A paragraph's or a list item's text leaves out the blocks inside it,
  // a nested list or a code block: each is read on its own.)
  var BLOCKS = 'p, ul, ol, li, dl, pre, div, table';
  function cellText(cell, out) {
    var text = '', at = [];
    (function walk(n) {
      n.childNodes.forEach(function (c) {
        if (c.nodeType === Node.ELEMENT_NODE && c.matches(BLOCKS)) {
          text += ' '; at.push(null);
        } else if (c.nodeType === Node.TEXT_NODE) {
          for (var i = 0; i < c.data.length; i++) { text += c.data[i]; at.push([c, i]); }
        } else if (c.nodeType === Node.ELEMENT_NODE && c.matches('small:empty')) {
          if (!/([._\/<(]|::)$/.test(text))
            out.push('a break point in a name not after a dot, an underscore, a slash, a ::, a < or a (: "' +
                     (text + '|').slice(-40) + '"');
          text += '\u200b'; at.push(null);
        } else if (c.nodeType === Node.ELEMENT_NODE) {
          walk(c);
        }
      });
    })(cell);
    return {text: text, at: at};
  }
  // The lines the characters at[from..to) are laid out on: 1 if they lie on
  // one, and their width.
  function linesOf(at, from, to) {
    var rects = [], range = document.createRange(), i = from;
    while (i < to) {  // one range per text node the word has a part in
      var node = at[i][0], j = i;
      while (j < to && at[j] && at[j][0] === node) j++;
      range.setStart(node, at[i][1]);
      range.setEnd(node, at[j - 1][1] + 1);
      Array.prototype.push.apply(rects, Array.prototype.slice.call(range.getClientRects()));
      i = j;
    }
    var first = rects[0], lines = rects.length ? 1 : 0, wide = 0;
    rects.forEach(function (r) {
      wide += r.width;
      if (r.top > first.top + first.height / 2) { lines++; first = r; }
    });
    return {lines: lines, wide: wide};
  }
  // The two characters of c.text[from..to) either side of its first line
  // break (one character's box at a time: a broken word is rare).
  function brokenAt(c, from, to) {
    var range = document.createRange(), top = null;
    for (var i = from; i < to; i++) {
      range.setStart(c.at[i][0], c.at[i][1]);
      range.setEnd(c.at[i][0], c.at[i][1] + 1);
      var r = range.getClientRects()[0];
      if (!r) continue;
      if (top === null) top = r;
      else if (r.top > top.top + top.height / 2) return c.text.slice(i - 1, i + 1);
    }
    return '';
  }
  // A word split over two lines: the text broke mid-word ("comple ted")
  // instead of at a space. Words are split at - and / too, where a browser
  // may break a line, and at a long name's break points (cellText), the
  // only places a name may wrap. In a table cell a word wider than its cell
  // may break (the table's own check says it is too wide); in the prose (a
  // paragraph, a list item) none may: a long name in a sentence,
  // `queue_vs_queue_vs_completion_then_destroy`, wraps at its break points.
  var PROSE = 'div.contents p, div.contents li';
  function brokenWords(out, width) {
    var seen = {n: 0};
    document.querySelectorAll(KINDS[2][1]).forEach(function (t) {
      if (!shown(t)) return;
      t.querySelectorAll('td, th').forEach(function (cell) {
        wordsWhole(cell, cell.clientWidth, 'a table cell', 'its cell', ': ' + name(t), out, width, seen);
      });
    });
    document.querySelectorAll(PROSE).forEach(function (p) {
      if (!shown(p) || p.closest('td, th, ' + CODE)) return;
      var what = p.tagName === 'LI' ? 'a list item' : 'a paragraph';
      wordsWhole(p, Infinity, what, 'the ' + what.slice(2), headingOf(p), out, width, seen);
    });
  }
  // The words of BOX (a cell, a paragraph) each on one line, but for those
  // wider than FITS: the first 5 of a page that are not, in OUT. In the
  // prose (FITS Infinity) a word may break where the browser breaks a line
  // between punctuation ("(after, ;[), not between the letters, digits,
  // dots, colons and underscores of a name.
  function wordsWhole(box, fits, what, of, where, out, width, seen) {
    if (seen.n >= 5) return;
    var c = cellText(box, out), word = /[^\s\-\/\u2014\u200b]{2,}/g, m;
    while ((m = word.exec(c.text)) && seen.n < 5) {
      var laid = linesOf(c.at, m.index, m.index + m[0].length);
      if (laid.lines > 1 && fits === Infinity && !/[\w.:]{2}/.test(brokenAt(c, m.index, m.index + m[0].length))) continue;
      if (laid.lines > 1 && laid.wide <= fits) {
        seen.n++;
        out.push('a word broken across lines in ' + what + ' at ' + width + ' px: "' + m[0].slice(0, 40) + '" (' +
                 Math.round(laid.wide) + ' px, ' + of + ' is ' + box.clientWidth + ' px)' + where);
      }
    }
  }
  // The heading a thing is under, for naming it.
  function headingOf(el) {
    var found = null;
    document.querySelectorAll('div.contents h1, div.contents h2, div.contents h3, div.contents h4, main h1, main h2')
      .forEach(function (h) { if (h.compareDocumentPosition(el) & Node.DOCUMENT_POSITION_FOLLOWING) found = h; });
    return found ? ' (under "' + found.textContent.trim().replace(/\s+/g, ' ').slice(0, 50) + '")' : '';
  }
  // On a phone, a table that scrolls in its box keeps its first column in
  // view (sticky), and that column leaves room for the figures scrolling
  // under it: it takes at most STICKY_SHARE of the box's width, and no cell
  // of it holds a word wider than itself (the word would lie over the
  // figures).
  var STICKY_SHARE = 0.45;
  function stickyColumnRoom(out, width, shareOnly) {
    if (width >= 600) return;
    document.querySelectorAll(KINDS[2][1]).forEach(function (t) {
      var box = shown(t) && firstColumnStays(t) && hides(t);
      if (!box) return;
      var widest = 0, over = null;
      firstColumn(t).forEach(function (c) {
        widest = Math.max(widest, c.getBoundingClientRect().width);
        if (!over && c.scrollWidth > c.clientWidth + 1) over = c;
      });
      if (widest > box.clientWidth * STICKY_SHARE)
        out.push('a wide table\'s sticky first column takes ' + Math.round(widest) + ' px of the ' + box.clientWidth +
                 ' px its table scrolls in at ' + width + ' px (over ' + Math.round(STICKY_SHARE * 100) +
                 '%: the figures scroll under it)' + headingOf(t) + ': ' + name(t));
      if (over && !shareOnly)
        out.push('a word wider than the sticky first column at ' + width + ' px (' + over.scrollWidth + ' px in ' +
                 over.clientWidth + ', it lies over the figures)' + headingOf(t) + ': "' +
                 over.textContent.trim().slice(0, 60) + '"');
    });
  }
  // A source page's lines do not wrap on screen (a comment's aligned
  // columns would fall apart): the box scrolls sideways instead.
  function sourceLines(out, width) {
    var lines = document.querySelectorAll('pre.src span.l');
    if (!lines.length) return;
    var one = Infinity, wrapped = [];
    lines.forEach(function (l) { var h = l.getBoundingClientRect().height; if (h > 0) one = Math.min(one, h); });
    lines.forEach(function (l) { if (l.getBoundingClientRect().height > one * 1.5) wrapped.push(l.id); });
    if (wrapped.length)
      out.push(wrapped.length + ' source lines wrap on screen at ' + width + ' px (first ' + wrapped[0] +
               '): a comment\'s aligned columns fall apart; the box should scroll sideways');
  }
  // A diagram scales to its box (a phone shows it whole, smaller) and links
  // to its full-size image (to read its labels there).
  function fullSize(pic) {
    var link = pic.closest('a[href]'), src = pic.getAttribute('src') || pic.getAttribute('data') || '';
    return !!link && link.getAttribute('href').split('#')[0] === src;
  }
  function diagramsScale(out, width) {
    document.querySelectorAll('div.dotgraph').forEach(function (box) {
      var pic = box.querySelector('img, iframe, object');
      if (!pic || !shown(box)) return;
      var src = pic.getAttribute('src') || pic.getAttribute('data');
      var over = Math.round(pic.getBoundingClientRect().right - box.getBoundingClientRect().right);
      if (over > 2 || box.scrollWidth > box.clientWidth + 2)
        out.push('diagram wider than its box at ' + width + ' px (it scrolls instead of scaling): ' + src + ' is ' +
                 Math.round(pic.getBoundingClientRect().width) + ' px in ' + box.clientWidth);
      if (width === 1280 && !fullSize(pic))
        out.push('diagram without a link to its full-size image: ' + src);
      // At 1280 px an image of a step's state diagram is drawn at its own
      // size: scaled below it, its labels shrink (the frame's check, below).
      if (width === 1280 && pic.tagName === 'IMG' && /^dot_\d\d-[a-z0-9-]+\.svg$/.test(src || '') && !/-graph-/.test(src) &&
          pic.naturalWidth > box.clientWidth + 2)
        out.push('state diagram wider than the text column at 1280 px: ' + src + ' is ' + pic.naturalWidth +
                 ' px in a ' + box.clientWidth + ' px column (scaled down, its labels shrink)');
    });
  }
  function boxes(out, width) {
    var counted = new Set();
    KINDS.forEach(function (kind) {
      document.querySelectorAll(kind[1]).forEach(function (el) {
        if (counted.has(el) || !shown(el)) return;
        counted.add(el);
        el.querySelectorAll('*').forEach(function (c) { counted.add(c); });
        var r = el.getBoundingClientRect(), box = hides(el);
        if (box && kind[0] === 'table' && firstColumnStays(el)) box = null;
        if (box)
          out.push(kind[0] + ' hides ' + (box.scrollWidth - box.clientWidth) + ' px of ' + box.scrollWidth +
                   ' in its ' + box.clientWidth + ' px box at ' + width + ' px: ' + name(el));
        else if (r.right > width + 1)
          out.push(kind[0] + ' runs past the window (' + Math.round(r.right) + ' px) at ' + width + ' px: ' + name(el));
      });
    });
  }
  // A table whose last columns carry the lesson: the mutation table (its
  // rows' anchors are m-...: what each mutant broke and the test that
  // caught it) and a step's memory-order table (mo-...: why, and the shape
  // it relies on). At 1280 px each fits its column, so that its last
  // columns are read, not scrolled to; the mutation table's columns naming
  // the catching test (headed "killed by..." and "explorer alone...") lie
  // in the window and are wide enough to read a test's name in. (On a
  // phone, where each row is a card, the same holds of the cards.) Returns
  // how many of each kind it measured (check_browser.py wants some).
  var LESSON = {'m': 'the mutation table', 'mo': 'a memory-order table', 'ls': 'a litmus family\'s summary'};
  var CATCHING = /^(killed by|explorer alone)/, CATCHING_PX = 200;
  function lessonKind(t) {
    if (t.classList.contains('litmus-summary')) return 'ls';  // (RC11's answer and the explorer's, last)
    var a = t.querySelector('td > a[id^="m-"], td > a[id^="mo-"]');
    return a ? a.id.replace(/-.*/, '') : null;
  }
  function lessonTables(out, width) {
    var count = {m: 0, mo: 0, ls: 0};
    document.querySelectorAll('div.contents table').forEach(function (t) {
      var kind = lessonKind(t);
      if (!kind || !shown(t)) return;
      count[kind]++;
      // The width the table needs: its box, or more if it (or the part the
      // theme scrolls, its tbody) holds more than it shows.
      var need = t.getBoundingClientRect().width;
      [t].concat(Array.prototype.slice.call(t.querySelectorAll(':scope > thead, :scope > tbody'))).forEach(function (e) {
        need = Math.max(need, e.scrollWidth);
      });
      var box = t.parentElement, cs = getComputedStyle(box);
      var room = box.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight);
      if (need > room + 1)
        out.push(LESSON[kind] + ' is ' + Math.round(need) + ' px wide in its ' + Math.round(room) + ' px column at ' +
                 width + ' px (its last columns, the lesson, behind a sideways scroll)' + headingOf(t));
      if (kind !== 'm') return;
      var rows = t.querySelectorAll('tr'), head = rows[0] ? Array.prototype.slice.call(rows[0].children) : [];
      var cols = [];
      head.forEach(function (c, i) { if (CATCHING.test(c.textContent.trim())) cols.push(i); });
      if (!cols.length) {
        out.push('the mutation table has no column headed "killed by" or "explorer alone" (the catching test)' + headingOf(t));
        return;
      }
      var right = Math.min(width, box.getBoundingClientRect().left + box.clientWidth - parseFloat(cs.paddingRight));
      cols.forEach(function (i) {
        var what = head[i].textContent.trim().replace(/\s+/g, ' ');
        for (var r = 1; r < rows.length; r++) {
          var cell = rows[r].children[i];
          if (!cell) continue;
          var at = cell.getBoundingClientRect();
          if (!shown(cell) || at.right > right + 1 || at.left < -1) {
            out.push('the mutation table\'s "' + what + '" column is out of view at ' + width + ' px (' +
                     Math.round(at.left) + '..' + Math.round(at.right) + ' px, the column shows up to ' +
                     Math.round(right) + ')' + headingOf(t));
            return;
          }
          if (at.width < CATCHING_PX) {
            out.push('the mutation table\'s "' + what + '" column is ' + Math.round(at.width) + ' px wide at ' + width +
                     ' px (under ' + CATCHING_PX + ': a test\'s name is a column of fragments)' + headingOf(t));
            return;
          }
        }
      });
    });
    return count;
  }
  // Graph label text as drawn, against the body text.
  function bodyText() {
    var p = document.querySelector('div.contents p') || document.body;
    return parseFloat(getComputedStyle(p).fontSize);
  }
  function svgScale(svg, shownWidth) {
    var vb = svg.viewBox && svg.viewBox.baseVal;
    var w = vb && vb.width ? vb.width : svg.getBBox().width;
    return w ? shownWidth / w : 1;
  }
  // The smallest node label's font size, in px as drawn (a node's text is
  // what the reader reads: the events; edge labels are shorter names).
  function labelPx(svg, scale) {
    var least = Infinity;
    svg.querySelectorAll('g.node text').forEach(function (t) {
      var fs = parseFloat(t.getAttribute('font-size') || getComputedStyle(t).fontSize);
      if (fs) least = Math.min(least, fs * scale);
    });
    return least;
  }
  function read(url) { // fetch() does not read file: URLs; XMLHttpRequest does (--allow-file-access-from-files)
    return new Promise(function (done, fail) {
      var x = new XMLHttpRequest();
      x.onload = function () { done(x.responseText); }; x.onerror = fail;
      x.open('GET', url); x.send();
    });
  }
  function graphs(out, width) {
    var body = bodyText(), jobs = [];
    document.querySelectorAll('img[src$=".svg"]').forEach(function (img) {
      if (!shown(img) || !/litmus|graph|dot_/.test(img.getAttribute('src'))) return;
      if (img.closest('div.dotgraph')) {  // as a frame's (below): an execution graph's text, at 1280 px
        if (!/graph/.test(img.getAttribute('src')) || (width < 1280 && fullSize(img))) return;  // (a tap: the full size)
      }
      jobs.push(read(img.src).then(function (text) {
        var svg = new DOMParser().parseFromString(text, 'image/svg+xml').querySelector('svg');
        if (!svg) return;
        var vb = (svg.getAttribute('viewBox') || '').split(/[\s,]+/).map(parseFloat);
        var scale = vb.length === 4 && vb[2] ? img.getBoundingClientRect().width / vb[2] : 1;
        var least = Infinity;
        svg.querySelectorAll('g.node text').forEach(function (t) {
          var fs = parseFloat(t.getAttribute('font-size')); if (fs) least = Math.min(least, fs * scale); });
        if (least < body - 0.5)
          out.push('graph node text ' + least.toFixed(1) + ' px, body text ' + body + ' px at ' + width + ' px: ' + name(img));
      }).catch(function () {}));
    });
    document.querySelectorAll('div.dotgraph iframe, iframe[src$=".svg"], object[type="image/svg+xml"]').forEach(function (f) {
      var svg = f.contentDocument && f.contentDocument.querySelector('svg');
      if (!svg || !shown(f) || !/graph/.test(f.getAttribute('src') || f.getAttribute('data') || '')) return;
      var least = labelPx(svg, svgScale(svg, svg.getBoundingClientRect().width));
      if (least < body - 0.5)
        out.push('graph node text ' + least.toFixed(1) + ' px, body text ' + body + ' px at ' + width + ' px: ' + name(f));
    });
    return Promise.all(jobs);
  }
  // On a phone, the text of every diagram and graph a page shows in a
  // figure (a walkthrough's state diagram and execution graph, a litmus
  // test's graphs: an image of an SVG in div.dotgraph or <figure>; an SVG
  // drawn inline or in a frame there too), as drawn: the smallest font-size
  // in the SVG, in its user units (Graphviz's points, which its viewBox
  // counts), times the scale of the groups around the text, times the
  // image's rendered width over the viewBox's width (its natural width,
  // without a viewBox). A phone layout shown in place of the wide one
  // (<picture>, or an image only one width shows) is the one measured. Each
  // figure's least, for check_browser.py to report and judge (PHONE_TEXT_PX).
  function scaleOf(el) {  // the scale the transform attributes of EL and the groups around it apply
    var k = 1;
    for (var e = el; e && e.getAttribute; e = e.parentNode) {
      var t = e.getAttribute('transform') || '', m;
      var re = /(scale|matrix)\(([^)]*)\)/g;
      while ((m = re.exec(t))) {
        var v = m[2].trim().split(/[\s,]+/).map(parseFloat);
        k *= m[1] === 'scale' ? Math.sqrt(Math.abs(v[0] * (v.length > 1 ? v[1] : v[0])))
                              : Math.sqrt(Math.abs(v[0] * v[3] - v[1] * v[2]));
      }
    }
    return k;
  }
  function fontSizeOf(el) {  // a text's font-size in user units: its own, or the nearest group's (SVG's default 16)
    for (var e = el; e && e.getAttribute; e = e.parentNode) {
      var fs = e.getAttribute('font-size') || ((e.getAttribute('style') || '').match(/font-size:\s*([\d.]+)/) || [])[1];
      if (fs && parseFloat(fs)) return parseFloat(fs);
    }
    return 16;
  }
  function smallestText(svg) {  // [the least font-size × scale, in the viewBox's units; its text]
    var least = [Infinity, ''];
    svg.querySelectorAll('text, tspan').forEach(function (t) {
      var own = Array.prototype.some.call(t.childNodes, function (n) { return n.nodeType === 3 && n.data.trim(); });
      if (!own) return;
      var fs = fontSizeOf(t) * scaleOf(t);
      if (fs < least[0]) least = [fs, t.textContent.trim().slice(0, 30)];
    });
    return least;
  }
  var FIGURES = 'div.contents figure, div.contents div.dotgraph';
  function phoneText(width) {
    var jobs = [], found = [];
    document.querySelectorAll(FIGURES).forEach(function (fig) {
      if (fig.parentElement.closest(FIGURES)) return;  // (a figure's own figure: measured with it)
      fig.querySelectorAll('img').forEach(function (img) {
        var src = img.currentSrc || img.src;
        if (!shown(img) || !/\.svg([?#]|$)/.test(src)) return;
        var drawn = img.getBoundingClientRect().width;
        jobs.push(read(src).then(function (text) {
          var svg = new DOMParser().parseFromString(text, 'image/svg+xml').querySelector('svg');
          if (!svg) return;
          var vb = (svg.getAttribute('viewBox') || '').trim().split(/[\s,]+/).map(parseFloat);
          var units = vb.length === 4 && vb[2] > 0 ? vb[2] : img.naturalWidth;
          var least = smallestText(svg);
          if (least[0] === Infinity || !units) return;
          var name = img.currentSrc && img.currentSrc !== img.src ? src.split('/').pop() : img.getAttribute('src');
          found.push({src: name, px: least[0] * drawn / units, font: least[0], units: units, drawn: drawn,
                      text: least[1]});
        }).catch(function () {}));
      });
      // An SVG drawn inline, or in a frame: the browser's own scale, as drawn.
      var inline = Array.prototype.slice.call(fig.querySelectorAll('svg'));
      fig.querySelectorAll('iframe, object').forEach(function (f) {
        var svg = f.contentDocument && f.contentDocument.querySelector('svg');
        if (svg) inline.push(svg);
      });
      inline.forEach(function (svg) {
        if (!svg.getClientRects().length) return;
        var least = [Infinity, ''];
        svg.querySelectorAll('text').forEach(function (t) {
          var m = t.getScreenCTM();
          if (!m || !t.textContent.trim()) return;
          var px = parseFloat(getComputedStyle(t).fontSize) * Math.sqrt(Math.abs(m.a * m.d - m.b * m.c));
          if (px < least[0]) least = [px, t.textContent.trim().slice(0, 30)];
        });
        if (least[0] < Infinity)
          found.push({src: (svg.ownerDocument !== document ? svg.ownerDocument.URL.split('/').pop() : 'an inline SVG'),
                      px: least[0], drawn: svg.getBoundingClientRect().width, text: least[1]});
      });
    });
    return Promise.all(jobs).then(function () { return found; });
  }
  function pageWidth(out, width) {
    // (Against the screen's width, not innerWidth: a phone widens its
    // layout viewport to a page too wide for it, and shows it zoomed out.)
    var wide = Math.max(document.documentElement.scrollWidth, window.innerWidth);
    if (wide <= width + 1) return;
    var widest = null;
    document.body.querySelectorAll('*').forEach(function (el) {
      var r = el.getBoundingClientRect();
      if (r.right > width + 1 && !widest && getComputedStyle(el).position !== 'fixed') widest = el;
    });
    out.push('the page is ' + wide + ' px wide in a ' + width + ' px window (scrolls sideways)' +
             (widest ? ': first too wide: ' + name(widest) + ' ' + Math.round(widest.getBoundingClientRect().right) + ' px' : ''));
  }
  function pager() {
    var nav = document.querySelectorAll('nav.pager'), prev = null, next = null;
    nav.forEach(function (n) {
      var p = n.querySelector('a.prev'), x = n.querySelector('a.next');
      if (p && !prev) prev = p.href;
      if (x && !next) next = x.href;
    });
    return {prev: prev, next: next};
  }
  // A <picture>'s image once the width changed: the browser picks the source
  // whose media now matches, loads it, and only then makes it currentSrc
  // (on a busy machine that is later than the check would run). Wait for
  // the source the reader will see, then measure that: a picture that has
  // not switched after 10 s is a problem, not the old image measured.
  function chosenSource(img) {
    var pic = img.parentElement && img.parentElement.tagName === 'PICTURE' ? img.parentElement : null;
    var sources = pic ? pic.querySelectorAll('source') : [];
    for (var i = 0; i < sources.length; i++) {
      var media = sources[i].getAttribute('media');
      if (!media || window.matchMedia(media).matches)
        return new URL(sources[i].getAttribute('srcset').trim().split(/\s+/)[0], document.baseURI).href;
    }
    return img.src;
  }
  function pictures(out, width) {
    var imgs = Array.prototype.slice.call(document.querySelectorAll('picture > img'));
    return Promise.all(imgs.map(function (img) {
      return new Promise(function (done) {
        var until = Date.now() + 10000;
        (function poll() {
          var want = chosenSource(img);
          if (img.currentSrc === want && img.complete) return done();
          if (Date.now() > until) {
            out.push('a picture still shows ' + (img.currentSrc || img.src).split('/').pop() + ' at ' + width +
                     ' px, 10 s after the width changed (its source for this width: ' + want.split('/').pop() + ')');
            return done();
          }
          setTimeout(poll, 25);
        })();
      });
    }));
  }
  // The litmus playground (playground.html, docs/playground.js), driven as
  // a reader drives it: a test of the chapter picked (NAME), or TEXT typed
  // in, then Run; once the result is shown (or after WAIT ms), what the
  // page shows, read back from its elements: each state's row and count,
  // Positive and Negative, the race report, the forbidden candidate, an
  // error's text, and the seconds the page took.
  window.__lockstepPlayground = function (name, text, wait) {
    var $ = function (id) { return document.getElementById(id); };
    var result = $('pg-result'), started = performance.now();
    if (name) { $('pg-test').value = name; $('pg-test').dispatchEvent(new Event('change')); }
    if (text !== null) $('pg-text').value = text;
    delete result.dataset.seconds;
    result.replaceChildren();  // (the last run's result is no answer to this one)
    $('pg-run').click();
    function text_(sel) { var e = result.querySelector(sel); return e ? e.textContent.trim() : null; }
    function shown() {
      var rows = Array.prototype.map.call(result.querySelectorAll('table.pg-states tr'), function (tr) {
        return Array.prototype.map.call(tr.children, function (c) { return c.textContent.trim(); });
      }).slice(1);
      return JSON.stringify({seconds: result.dataset.seconds ? parseFloat(result.dataset.seconds) : null,
        waited: (performance.now() - started) / 1000, rows: rows, positive: text_('.pg-positive'),
        negative: text_('.pg-negative'), race: text_('.pg-race-report'), norace: !!result.querySelector('.pg-norace'),
        forbidden: text_('figure.pg-forbidden p.pg-caption, p.pg-forbidden'), error: text_('pre.pg-error'), status: $('pg-status').textContent,
        other: result.querySelector('.pg-toobig, .pg-stopped, .pg-none') ? result.textContent.trim() : null,
        graphs: graphs()});
    }
    // {a figure's state (its caption's first code span; "forbidden" for the
    // candidate's): its SVG's text, blanks left out}
    function graphs() {
      var out = {};
      result.querySelectorAll('figure.pg-graph').forEach(function (f) {
        var key = f.classList.contains('pg-forbidden') ? 'forbidden' : f.querySelector('p.pg-caption code').textContent;
        var svg = f.querySelector('svg');
        out[key] = svg ? svg.textContent.replace(/\s+/g, '') : null;
      });
      return out;
    }
    return new Promise(function (done) {
      var until = Date.now() + wait;
      (function poll() {
        if (result.dataset.seconds || result.querySelector('.pg-toobig, .pg-none') || Date.now() > until)
          return done(shown());
        setTimeout(poll, 10);
      })();
    });
  };
  var loaded = new Promise(function (done) { window.addEventListener('load', done); }).then(function () {
    return Promise.all(Array.prototype.slice.call(document.querySelectorAll('img')).map(settled));
  });
  // The first call (at 1280 px) checks what a width does not change too.
  // At SMALL (a small phone, 360 px) only the sticky column's share.
  window.__lockstepCheck = function (width, course, small) {
    if (small) return loaded.then(function () {
      var out = [];
      stickyColumnRoom(out, width, true);
      return JSON.stringify({problems: out, images: 0, diagrams: 0, pager: pager()});
    });
    var out = [];
    return loaded.then(function () { return pictures(out, width); }).then(function () {
      var images = 0, diagrams = 0;
      // A folded answer is checked as the reader sees it once opened.
      document.querySelectorAll('details').forEach(function (d) { d.open = true; });
      if (width === 1280) {
        out.push.apply(out, found);
        document.querySelectorAll('img').forEach(function (img) {
          images++;
          var src = img.getAttribute('src');
          if (!img.complete) out.push('image still loading after 4 s: ' + src);
          else if (img.naturalWidth === 0) out.push('image not loaded: ' + src);
          else if (shown(img) && (size(img)[0] === 0 || size(img)[1] === 0)) out.push('image at zero size: ' + src);
        });
        rawMarkup(out);
      }
      document.querySelectorAll('div.dotgraph iframe, div.dotgraph object, iframe[src$=".svg"], object[type="image/svg+xml"]').forEach(function (frame) {
        diagrams++;
        var src = frame.getAttribute('src') || frame.getAttribute('data');
        var s = size(frame);
        if (s[0] === 0 || s[1] === 0) { out.push('diagram at zero size at ' + width + ' px: ' + src); return; }
        var doc = frame.contentDocument;
        var svg = doc && doc.querySelector('svg');
        if (!svg) { if (width === 1280) out.push('diagram not loaded: ' + src); return; }
        var r = svg.getBoundingClientRect();
        if (r.width === 0 || r.height === 0) out.push('diagram drawn at zero size: ' + src);
        else if (r.width > frame.clientWidth + 2 || r.height > frame.clientHeight + 2)
          out.push('diagram cut by its frame at ' + width + ' px: ' + src + ' is ' + Math.round(r.width) + 'x' + Math.round(r.height) +
                   ' in ' + frame.clientWidth + 'x' + frame.clientHeight);
        // A step's state diagram (docs/diagrams/NN-*.dot) fits the text column
        // at 1280 px: its box would scroll, and what lies past the column's
        // edge (a label) is cut off where the reader looks. On a phone it
        // scrolls in its box.
        var box = frame.closest('div.dotgraph');
        if (width === 1280 && box && /^dot_\d\d-[a-z0-9-]+\.svg$/.test(src || '') && !/-graph-/.test(src) &&
            box.scrollWidth > box.clientWidth + 2)
          out.push('state diagram wider than the text column at 1280 px: ' + src + ' is ' + box.scrollWidth +
                   ' px in a ' + box.clientWidth + ' px column (its labels past the edge are cut off)');
      });
      pageWidth(out, width);
      sourceLines(out, width);
      diagramsScale(out, width);
      var lesson = {m: 0, mo: 0, ls: 0};
      if (course) { boxes(out, width); brokenWords(out, width); stickyColumnRoom(out, width); }
      if (course) lesson = lessonTables(out, width);  // (at 390 px too: the cards keep to the column)
      return graphs(out, width).then(function () {
        return course && width < 600 ? phoneText(width) : [];
      }).then(function (text) {
        return JSON.stringify({problems: out, images: images, diagrams: diagrams, pager: pager(), lesson: lesson,
                               figureText: text});
      });
    });
  };
})();
