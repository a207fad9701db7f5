#!/usr/bin/env python3
"""check_browser.py SITE: the site's pages as a browser shows them.

Loads in one headless Chromium, at 1280 px and again at 390 px (a phone),
every kind of page the site has: the home page, every step's page,
walkthrough and lab, the challenge answers, every diff page, the course's
pages (errata, mutation table, explorer, glossary, litmus tests...), one
API page per step, and every source page; and fails on:
  - a script error or a console.error (the page's own scripts),
  - a resource that does not load (an image, a script, a style sheet, a
    diagram),
  - an image or a diagram drawn at zero size, or a diagram cut by its frame,
    or a step's state diagram wider than the text column at 1280 px,
  - raw markup a reader sees: `<tt>` in the text, a `**`, a `*word*`, a
    `[text](link)` or a backtick outside code, an inline code span that
    starts or ends with a backtick,
  - a page wider than the window: the reader would have to scroll the page
    sideways,
  - a box that hides what it holds, by kind (tables, traces, lab outputs and
    other text blocks, program tables, graphs): on the course's pages every
    box fits its width (a trace wraps, a table wraps its cells), but a table
    whose words do not fit may scroll in its own box if its first column
    stays in view (sticky); the source and diff pages' code may scroll in
    its own box,
  - a word of a table cell broken across two lines though it would fit on
    one ("comple ted"), or a word of a paragraph or a list item broken
    across two lines: text wraps at spaces (and after - or /), and a long
    name at the break points the site's generator put in it (after a dot,
    an underscore, a slash, a ::, a < or a (), nowhere else; a break point
    anywhere else,
  - on a phone (390 px), a table that scrolls in its box whose sticky
    first column takes more than 45% of the box (the figures scroll under
    it, out of reach), or holds a word wider than itself (it lies over
    them); on a small phone (360 px, the course's pages only) the same
    45%,
  - a source page whose line wraps on screen (the aligned columns of a
    comment table fall apart): its box scrolls sideways instead; printed,
    it wraps (below),
  - a diagram (a step's state diagram, a walkthrough's execution graph)
    wider than its box, scrolling rather than scaling to it, or without a
    link to its full-size image,
  - the mutation table's verdict columns ("killed by", "explorer") out of
    view without scrolling,
  - a graph whose node text, as drawn, is smaller than the page's body text
    (an execution graph shrunk to fit, or drawn in a small font); on a
    phone, a diagram linked to its full-size image may be smaller,
  - a course page without its previous and next (the reading order: home,
    the steps with their walkthroughs and labs, the memory-order chapter,
    the explorer and its reference, the mutation table, the errata, the
    glossary; the diff pages in step order), or a next whose page does not
    lead back,
  - on a source page, a printed line that does not read as the file's line.

How: Chromium runs headless with its DevTools protocol on a pipe
(--remote-debugging-pipe), one process for every page: each page is loaded
from the site as it is, a script added before its own records errors from
the start; once the page and its images have loaded, the script checks the
laid-out page at 1280 px, then at 390 px (and 360 px), and returns what it
found.

A source page is also printed to PDF (A4) by the same Chromium and read
back with `pdftotext -layout` (poppler-utils): the text as the glyphs were
laid out, not as the DOM holds it. A style that moves a name out of its
line, hides it, or cuts a long line at the paper's edge shows there, as
the reader sees it. Each printed line (from its number to the next) must be
the file's line, blanks collapsed (a long line wraps). The pages of steps 03
and 07, coro.h and the mutation results are printed (every kind of file the
site shows); every source page with LOCKSTEP_BROWSER_PRINT_ALL=1. The file
each page shows is read from src/.sources (written by cmake/pages_source.py).
Without pdftotext this part is skipped and the summary says so.

LOCKSTEP_BROWSER_PAGES=REGEX loads only the pages whose path matches.

Without Chromium the test says it is skipped, and why (exit 77). Standard
library only.
"""
import argparse
import base64
import html
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

WIDTHS = (1280, 390)
SMALL_PHONE = 360  # the course's pages only, and only a sticky first column's share of its box

# Runs in every page before its own scripts (Page.addScriptToEvaluateOnNewDocument).
CHECK = r"""
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
  // The mutation table (a header "killed by..."): its verdicts ("result",
  // "explorer") in view without scrolling, in the first mutant's row.
  function verdicts(out, width) {
    document.querySelectorAll('div.contents table').forEach(function (t) {
      var rows = t.querySelectorAll('tr');
      if (rows.length < 2) return;
      var names = Array.prototype.map.call(rows[0].children, function (c) { return c.textContent.trim(); });
      if (!names.some(function (n) { return /^killed by/.test(n); })) return;
      var box = t.getBoundingClientRect();
      var right = Math.min(width, box.left + (t.clientWidth || box.width));
      names.forEach(function (n, i) {
        if (n !== 'result' && n !== 'explorer') return;
        var cell = rows[1].children[i];
        if (!cell) return;
        var r = cell.getBoundingClientRect();
        if (!shown(cell) || r.right > right + 1)
          out.push('the mutation table\'s "' + n + '" column is out of view at ' + width + ' px (' + Math.round(r.left) +
                   '..' + Math.round(r.right) + ' px, the box shows up to ' + Math.round(right) + ')');
      });
    });
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
    return loaded.then(function () {
      var out = [], images = 0, diagrams = 0;
      // A folded answer is checked as the reader sees it once opened.
      document.querySelectorAll('details').forEach(function (d) { d.open = true; });
      if (width === 1280) {
        out = found.slice();
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
      if (course) { boxes(out, width); brokenWords(out, width); stickyColumnRoom(out, width); verdicts(out, width); }
      return graphs(out, width).then(function () {
        return JSON.stringify({problems: out, images: images, diagrams: diagrams, pager: pager()});
      });
    });
  };
})();
"""


class Chromium:
    """One headless Chromium driven over --remote-debugging-pipe: JSON
    messages ending in NUL, ours on its fd 3, its on its fd 4."""

    def __init__(self, exe, profile):
        to_child, self._to = os.pipe()
        self._from, from_child = os.pipe()

        def fds():  # (either end may be fd 3 or 4 already: copy both first)
            a, b = os.dup(to_child), os.dup(from_child)
            os.dup2(a, 3)
            os.dup2(b, 4)
        argv = [exe, "--headless", "--disable-gpu", "--no-first-run", "--hide-scrollbars",
                "--allow-file-access-from-files", "--remote-debugging-pipe", f"--user-data-dir={profile}",
                "--font-render-hinting=none", "about:blank"]
        if hasattr(os, "geteuid") and os.geteuid() == 0:
            argv.insert(1, "--no-sandbox")  # root (a container): Chromium's sandbox refuses to start
        self.proc = subprocess.Popen(argv, preexec_fn=fds, close_fds=False, stdin=subprocess.DEVNULL,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(to_child)
        os.close(from_child)
        self._buf = b""
        self._id = 0
        self.events = []

    def _read(self, deadline):
        while b"\0" not in self._buf:
            if time.monotonic() > deadline:
                raise TimeoutError
            chunk = os.read(self._from, 1 << 16)
            if not chunk:
                raise RuntimeError("Chromium closed its pipe")
            self._buf += chunk
        msg, self._buf = self._buf.split(b"\0", 1)
        return json.loads(msg)

    def call(self, method, params=None, session=None, timeout=120):
        self._id += 1
        msg = {"id": self._id, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        os.write(self._to, json.dumps(msg).encode() + b"\0")
        deadline = time.monotonic() + timeout
        while True:
            m = self._read(deadline)
            if m.get("id") == self._id:
                if "error" in m:
                    raise RuntimeError(f"{method}: {m['error'].get('message')}")
                return m.get("result", {})
            self.events.append(m)

    def wait_event(self, method, session, timeout=60):
        deadline = time.monotonic() + timeout
        while True:
            for i, m in enumerate(self.events):
                if m.get("method") == method and m.get("sessionId") == session:
                    del self.events[i]
                    return m
            self.events.append(self._read(deadline))

    def close(self):
        try:
            self.call("Browser.close", timeout=10)
        except Exception:
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()


class Tab:
    def __init__(self, browser):
        self.b = browser
        target = browser.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        self.s = browser.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        for m in ("Page.enable", "Runtime.enable"):
            browser.call(m, session=self.s)
        browser.call("Page.addScriptToEvaluateOnNewDocument", {"source": CHECK}, session=self.s)

    def width(self, w):
        self.b.call("Emulation.setDeviceMetricsOverride",
                    {"width": w, "height": 900, "deviceScaleFactor": 1, "mobile": w < 600}, session=self.s)

    def load(self, url):
        self.b.events = [e for e in self.b.events if e.get("sessionId") != self.s]
        self.b.call("Page.navigate", {"url": url}, session=self.s)
        self.b.wait_event("Page.loadEventFired", self.s)

    def check(self, width, course):
        small = json.dumps(width == SMALL_PHONE)
        r = self.b.call("Runtime.evaluate", {"expression": f"window.__lockstepCheck({width}, {json.dumps(course)}, {small})",
                                             "awaitPromise": True, "returnByValue": True}, session=self.s)
        if "exceptionDetails" in r:
            raise RuntimeError(r["exceptionDetails"].get("text", "the check failed"))
        return json.loads(r["result"]["value"])

    def exceptions(self):
        out = [e for e in self.b.events if e.get("sessionId") == self.s and e.get("method") == "Runtime.exceptionThrown"]
        return [e["params"]["exceptionDetails"].get("exception", {}).get("description", "exception").split("\n")[0]
                for e in out]

    def pdf(self):
        r = self.b.call("Page.printToPDF", {"paperWidth": 8.27, "paperHeight": 11.69, "marginTop": 0.4,
                                            "marginBottom": 0.4, "marginLeft": 0.4, "marginRight": 0.4,
                                            "displayHeaderFooter": False}, session=self.s)
        return base64.b64decode(r["data"])


# The source pages printed and read back: every kind of file (C, header,
# CMake, results table) of two steps, the common header and the mutation
# results; all of them with LOCKSTEP_BROWSER_PRINT_ALL=1.
PRINTED = r"src/(steps/(03|07)-|common/|tests/mutants/)"
PRINT_ALL = os.environ.get("LOCKSTEP_BROWSER_PRINT_ALL") == "1"

# The reading order's pages beyond the steps, after the last step's lab. The
# explorer's reference (tests/explore/REFERENCE.md) comes right after the
# explorer's page, under whatever name the site gives it: reference_page().
COURSE_ORDER = ["litmus.html", "explorer.html", "mutants.html", "errata.html", "glossary.html"]
REFERENCE_MD = Path(__file__).resolve().parent.parent / "explore" / "REFERENCE.md"
# A step's pages, in its reading order (deep: a README's depths), and the
# API page loaded for each step.
STEP_PAGES = ("index.html", "deep.html", "walkthrough.html", "lab.html")
API_PAGE = "task_8h.html"


def reference_page(site):
    """The site's page of the explorer's reference: the top-level page whose
    <title> holds REFERENCE.md's title (its first line), or None."""
    if not REFERENCE_MD.is_file():
        return None
    with REFERENCE_MD.open(encoding="utf-8") as f:
        title = re.sub(r"^#+ *| *\{#[^}]*\}$", "", f.readline().strip()).replace("`", "")
    for page in sorted(site.iterdir()):
        if not page.name.endswith(".html"):
            continue
        with page.open(encoding="utf-8", errors="replace") as f:
            m = re.search(r"<title>(.*?)</title>", f.read(4096), re.S)
        if m and title in html.unescape(m.group(1)):
            return page.name
    return None


def log_skip(line):
    """LINE in the skip log ctest's summary reads (LOCKSTEP_SKIP_LOG), if any."""
    log = os.environ.get("LOCKSTEP_SKIP_LOG")
    if log:
        with open(log, "a") as f:
            f.write(line + "\n")


def skip(reason):
    line = f"docs.browser: {reason}"
    print(f"SKIPPED {line}")
    log_skip(line)
    sys.exit(77)


def is_step(path):
    """A step's directory of the site (NN-name, its Doxygen pages in html/)."""
    return re.match(r"\d\d-", path.name) and (path / "html").is_dir()


def step_dirs(site):
    """Every step's Doxygen directory, SITE/NN-name/html, in step order."""
    return [d / "html" for d in sorted(site.iterdir()) if is_step(d)]


def pages(site):
    """Every page to load: the site's Markdown pages, one API page per step,
    the challenge answers, the diffs, the source pages."""
    found = ["index.html"]
    for must in ("litmus.html",):
        if not (site / must).is_file():
            sys.exit(f"check_browser: no {site}/{must}: the course has lost a page")
    for path in sorted(site.iterdir()):
        if is_step(path):
            found += step_pages(path / "html")
        elif is_course_page(path):
            found.append(path.name)
    for sub in ("diffs", "src"):
        found += sorted(p.relative_to(site).as_posix() for p in (site / sub).rglob("*.html") if p.is_file())
    return found


def step_pages(html_dir):
    """The pages loaded of one step: its own (STEP_PAGES), its API page, its challenge answers."""
    name = html_dir.parent.name
    found = [f"{name}/html/{page}" for page in STEP_PAGES + (API_PAGE,) if (html_dir / page).is_file()]
    return found + [f"{name}/html/{n}" for n in sorted(p.name for p in html_dir.iterdir())
                    if n.startswith("md_docs_labs_answers_") and n.endswith(".html")]


def is_course_page(path):
    """A top-level page of the course (errata.html, mutants.html, ...)."""
    name = path.name
    return name.endswith(".html") and name != "index.html" and not name.startswith(("dir_", "graph_legend"))


def kind(rel):
    """The page's kind, for the pager's rules and the box checks."""
    if rel.startswith("src/"):
        return "source"
    if rel.startswith("diffs/"):
        return "diff"
    if re.match(r"\d\d-[^/]+/html/(index|deep|walkthrough|lab)\.html$", rel):
        return "step"
    if re.match(r"\d\d-[^/]+/html/", rel):
        return "api" if not rel.split("/")[-1].startswith("md_docs_labs_answers_") else "answers"
    return "course"


def reading_order(site):
    """The pages a student reads in order, from the home page to the end."""
    order = ["index.html"]
    for html_dir in step_dirs(site):
        order += [f"{html_dir.parent.name}/html/{page}" for page in STEP_PAGES if (html_dir / page).is_file()]
    course = list(COURSE_ORDER)
    ref = reference_page(site)
    if ref:
        course.insert(course.index("explorer.html") + 1, ref)
    return order + [p for p in course if (site / p).is_file()]


def linked_page(site, href):
    """The page a pager's file:// HREF names, relative to SITE (None: no link).
    A URL's path, not a file's: os.path.relpath, which walks up too."""
    return os.path.relpath(href[len("file://"):].split("#")[0], site) if href else None


def check_pagers(site, pagers):
    """Previous/next on every course page and diff page, in one order."""
    return check_order(site, pagers) + check_diff_order(site, pagers)


def check_order(site, pagers):
    """Previous and next of every page of the reading order that has a pager."""
    problems = []
    order = reading_order(site)
    for i, page in enumerate(order):
        if page not in pagers:
            continue
        prev, nxt = (linked_page(site, h) for h in pagers[page])
        want_prev = order[i - 1] if i else None
        want_next = order[i + 1] if i + 1 < len(order) else None
        if prev != want_prev:
            problems.append(f"{page}: previous is {prev or 'missing'}, the reading order says {want_prev or 'none'}")
        if nxt != want_next:
            problems.append(f"{page}: next is {nxt or 'missing'}, the reading order says {want_next or 'none'}")
    return problems


def check_diff_order(site, pagers):
    """Previous and next of every diff page, in step order."""
    problems = []
    diffs = sorted(p for p in pagers if kind(p) == "diff")
    for i, page in enumerate(diffs):
        prev, nxt = (linked_page(site, h) for h in pagers[page])
        if i and prev != diffs[i - 1]:
            problems.append(f"{page}: previous is {prev or 'missing'}, want {diffs[i - 1]}")
        if i + 1 < len(diffs) and nxt != diffs[i + 1]:
            problems.append(f"{page}: next is {nxt or 'missing'}, want {diffs[i + 1]}")
    return problems


def source_files(site):
    """{source page: the file it shows}, from src/.sources (pages_source.py)."""
    listing = site / "src" / ".sources"
    if not listing.is_file():
        return {}
    with listing.open(encoding="utf-8") as f:
        return dict(line.rstrip("\n").split("\t", 1) for line in f if "\t" in line)


def rendered_lines(text):
    """{n: the text of rendered line n} from `pdftotext -layout` of a source
    page: a line starts with its number (n+1 after n); a printed line that
    does not is the rest of the line before, wrapped by the layout."""
    lines, n = {}, 0
    started = False
    for row in text.replace("\f", "\n").split("\n"):
        m = re.match(r"^\s*(\d+)(?:\s(.*))?$", row)
        if m and int(m.group(1)) == n + 1:
            n = int(m.group(1))
            lines[n] = m.group(2) or ""
            started = True
        elif started and n and row.strip():
            lines[n] += " " + row.strip()
    return lines


def squeeze(s):
    return " ".join(s.split())


def same_line(shown, line):
    """A wrapped line may break inside a word: compare without blanks then."""
    return squeeze(shown) == squeeze(line) or "".join(shown.split()) == "".join(line.split())


def check_printed(tab, disk, rel, scratch):
    """The problems of one source page as printed on A4, or None without pdftotext."""
    pdftotext = shutil.which("pdftotext")
    if not pdftotext:
        return None
    pdf = scratch / "page.pdf"
    pdf.write_bytes(tab.pdf())
    out = subprocess.run([pdftotext, "-layout", pdf, "-"], capture_output=True, text=True)
    shown = rendered_lines(out.stdout)
    want = Path(disk).read_text(encoding="utf-8", errors="replace").split("\n")
    if want and want[-1] == "":
        want.pop()
    problems = []
    for n, line in enumerate(want, 1):
        if n not in shown:
            problems.append(f"{rel}: printed, line {n} is not on the page (want: {squeeze(line)!r})")
        elif not same_line(shown[n], line):
            problems.append(f"{rel}: printed, line {n} reads {squeeze(shown[n])!r}, the file has {squeeze(line)!r}")
        if len(problems) >= 5:
            problems.append(f"{rel}: (and maybe more lines; the first 5 shown)")
            break
    return problems


class Run:
    """One Chromium's pass over the site's pages: what it found and counted."""

    def __init__(self, site, tab, scratch):
        self.site, self.tab, self.scratch = site, tab, scratch
        self.sources = source_files(site)
        self.failures, self.pagers = [], {}
        self.checked = self.images = self.diagrams = self.printed = self.unprinted = 0

    def check_page(self, rel):
        """REL loaded and checked at every width; printed, if a source page to print."""
        k = kind(rel)
        try:
            seen = self.load(rel, k in ("course", "step", "answers"))
        except (RuntimeError, TimeoutError) as e:
            self.failures.append(f"{rel}: the check did not run: {e or 'timed out'}")
            return
        self.checked += 1
        self.images += seen[0]["images"]
        self.diagrams += seen[0]["diagrams"]
        for result in seen:
            self.failures += [f"{rel}: {p}" for p in dict.fromkeys(result["problems"])]
        self.failures += [f"{rel}: console: {e}" for e in self.tab.exceptions()]
        self.pagers[rel] = (seen[0]["pager"]["prev"], seen[0]["pager"]["next"])
        if k == "source" and rel[4:-5] in self.sources and (PRINT_ALL or re.match(PRINTED, rel)):
            self.print_page(rel)

    def load(self, rel, course):
        """The page's check results at each of WIDTHS (loaded at the first), a course page's at SMALL_PHONE too."""
        self.tab.width(WIDTHS[0])
        self.tab.load(f"file://{self.site / rel}")
        seen = []
        for w in WIDTHS + ((SMALL_PHONE,) if course else ()):
            self.tab.width(w)
            seen.append(self.tab.check(w, course))
        return seen

    def print_page(self, rel):
        self.tab.width(WIDTHS[0])
        problems = check_printed(self.tab, self.sources[rel[4:-5]], rel, self.scratch)
        if problems is None:
            self.unprinted += 1
        else:
            self.printed += 1
            self.failures += problems


def find_chromium():
    return next((shutil.which(c) for c in ("chromium", "chromium-browser", "google-chrome") if shutil.which(c)), None)


def check_site(site, chromium, only):
    """Every page (those matching the regex ONLY, if given) loaded and checked in one Chromium."""
    with tempfile.TemporaryDirectory(prefix="lockstep-browser-") as scratch:
        browser = Chromium(chromium, Path(scratch) / "profile")
        try:
            run = Run(site, Tab(browser), Path(scratch))
            for rel in [p for p in pages(site) if not only or re.search(only, p)]:
                run.check_page(rel)
        finally:
            browser.close()
    if not only:
        run.failures += check_pagers(site, run.pagers)
    return run


def report(run, chromium, seconds):
    for f in run.failures:
        print("failed:", f)
    print(f"check_browser: {run.checked} pages loaded in {Path(chromium).name} at {' and '.join(map(str, WIDTHS))} px "
          f"(the course's tables at {SMALL_PHONE} px too) "
          f"in {seconds:.0f} s, {run.images} images, {run.diagrams} diagrams, "
          f"{run.printed} source pages read back from print, {len(run.failures)} problems")
    if run.unprinted:
        line = f"docs.browser: {run.unprinted} source pages not read back: no pdftotext (apt install poppler-utils)"
        print(line)
        log_skip(line)


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split(": ", 1)[1],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("site", metavar="SITE", type=lambda s: Path(os.path.abspath(s)),
                   help="the generated site, build/<preset>/docs")
    return p.parse_args()


def main():
    site = parse_args().site
    if not (site / "index.html").is_file():
        sys.exit(f"check_browser: no {site}/index.html: build the docs first")
    chromium = find_chromium()
    if not chromium:
        skip("no Chromium to load the pages in (apt install chromium)")
    only = os.environ.get("LOCKSTEP_BROWSER_PAGES")  # a regex: load only those (while you work on them)
    started = time.monotonic()
    run = check_site(site, chromium, only)
    report(run, chromium, time.monotonic() - started)
    sys.exit(1 if run.failures else 0)


if __name__ == "__main__":
    main()
