/* A trace stepper: the reader steps through an explorer trace row by row
   and sees the row's event lit in its execution graph.

   The page (docs/generator/lockstep_site/stepper.py) ties a trace and a graph by a
   name, data-stepper="NAME" on each:
     - the trace, <div class="trace" data-stepper="NAME">: its rows
       <tr data-line="N">, N the trace line;
     - the graph, <div class="dotgraph" data-stepper="NAME">: its image and,
       over it, one <span class="stepper-marks" data-for="IMAGE"> per layout
       of the image (wide, phone), holding a mark per event box,
       <span class="stepper-mark" data-line="N" hidden>, placed in % of the
       image by the page itself: the script only shows the current row's
       marks of the layout the browser chose.
   The script adds the controls (previous step, next step, where you are)
   between a trace and its graph, or above the trace and under the graph
   when they lie apart, and lights the current row and its marks.
   Keys, in a trace or a graph (once clicked or tabbed to): the arrows, j
   and k, Home and End; j and k also anywhere else on the page, for the
   stepper last stepped while the window shows some of it, else the one
   it shows most of. A row clicked is the current one.
   The page's address may start a stepper at a line: #step=N (every
   stepper of the page that has line N) or #step=NAME:N.
   Without this script, and printed, the page is the figure and the trace
   as they were: nothing hidden, no controls (docs/stepper.css). Plain
   JavaScript: it runs from file:// with no server and no library. */
(function () {
  'use strict';
  if (window.lockstepStepper) return; // (a page may load it twice: it starts once)
  window.lockstepStepper = true;

  var steppers = [];
  var lastUsed = null; // the stepper the reader stepped last

  function fileName(url) {
    try { url = new URL(url, document.baseURI).pathname; } catch (e) { /* as given */ }
    return decodeURIComponent(String(url).split('/').pop());
  }

  function Stepper(name, parts) {
    var self = this;
    this.name = name;
    this.at = -1;
    this.rows = [];
    this.figures = [];
    this.bars = [];
    parts.forEach(function (part) {
      if (part.matches('div.trace')) self.addTrace(part);
      else self.addFigure(part);
    });
    // One bar between a trace and its graph when nothing else lies between
    // them (sticky at the top and at the bottom of the window: in view
    // while either is); else a bar above the trace and one under the graph.
    var done = [];
    parts.forEach(function (part) {
      if (done.indexOf(part) >= 0) return;
      var next = nextPart(part);
      if (next && parts.indexOf(next) >= 0 && next.matches('div.trace') !== part.matches('div.trace')) {
        self.wrap([part, next], 'both');
        done.push(next);
      } else if (part.matches('div.trace')) self.wrap([part], 'trace');
      else self.wrap([part], 'figure');
    });
    this.last = this.rows.length ? this.rows[this.rows.length - 1].getAttribute('data-line') : '0';
    this.paint();
  }

  /* The element after PART, past empty ones (Doxygen closes a paragraph
     around a block it passes through, leaving an empty <p>). */
  function nextPart(part) {
    var el = part.nextElementSibling;
    while (el && !el.textContent.trim() && !el.querySelector('img, table')) el = el.nextElementSibling;
    return el;
  }

  /* The controls of PARTS (a trace, a graph, or a trace and its graph side
     by side), in a wrapper of them: a part scrolls sideways in its own box,
     so the controls, sticky, must lie outside it. KIND: where the bar goes
     (trace: above it, figure: under it, both: between them). */
  Stepper.prototype.wrap = function (parts, kind) {
    var self = this, wrapper = document.createElement('div');
    wrapper.className = 'stepper-part stepper-' + kind;
    parts[0].parentNode.insertBefore(wrapper, parts[0]);
    var bar = document.createElement('div');
    bar.className = 'stepper-controls';
    bar.setAttribute('role', 'group');
    bar.setAttribute('aria-label', 'Step through the trace');
    var prev = button('previous step', 'stepper-prev'), next = button('next step', 'stepper-next');
    var status = document.createElement('span');
    status.className = 'stepper-status';
    status.setAttribute('aria-live', 'polite');
    bar.appendChild(prev);
    bar.appendChild(next);
    bar.appendChild(status);
    // (from a button: keep in view the part the window shows most of)
    prev.addEventListener('click', function () { self.go(self.at - 1, self.inView().kind); });
    next.addEventListener('click', function () { self.go(self.at + 1, self.inView().kind); });
    if (kind === 'trace') wrapper.appendChild(bar);
    wrapper.appendChild(parts[0]);
    if (kind !== 'trace') wrapper.appendChild(bar);
    if (parts[1]) wrapper.appendChild(parts[1]);
    wrapper.addEventListener('keydown', function (e) {
      var from = e.target.closest && e.target.closest('div.trace') ? 'trace' :
                 e.target.closest && e.target.closest('div.dotgraph') ? 'figure' : self.inView().kind;
      if (self.key(e, from)) e.preventDefault();
    });
    this.bars.push({prev: prev, next: next, status: status});
  };

  function button(text, cls) {
    var b = document.createElement('button');
    b.type = 'button';
    b.className = cls;
    b.textContent = text;
    return b;
  }

  Stepper.prototype.addTrace = function (part) {
    var self = this, table = part.querySelector('table.trace');
    if (!table) return;
    table.tabIndex = 0; // (focused, the keys step)
    table.setAttribute('aria-label', 'trace: click a row, or use the arrow keys, to step');
    var threads = Array.prototype.map.call(table.querySelectorAll('tr:first-child th'), function (th) {
      return th.textContent.trim();
    });
    table.querySelectorAll('tr[data-line]').forEach(function (row) {
      var k = self.rows.length;
      row.stepperThreads = threads;
      self.rows.push(row);
      row.addEventListener('click', function (e) {
        if (e.target.closest('a') || String(window.getSelection()).length) return; // (a link; text being selected)
        self.go(k, 'row');
      });
    });
  };

  Stepper.prototype.addFigure = function (part) {
    var self = this, img = part.querySelector('img');
    var marks = [];
    part.querySelectorAll('.stepper-marks').forEach(function (set) {
      set.querySelectorAll('.stepper-mark').forEach(function (m) {
        marks.push({el: m, layout: fileName(set.getAttribute('data-for')), line: m.getAttribute('data-line')});
      });
    });
    var figure = {img: img, marks: marks};
    this.figures.push(figure);
    // The browser may switch layouts (<picture>) as the window changes: the
    // marks follow the image it shows.
    if (img) img.addEventListener('load', function () { self.paint(); });
  };

  /* The layout the browser shows: the image it chose (currentSrc). */
  function layoutOf(figure) {
    var img = figure.img;
    return img ? fileName(img.currentSrc || img.getAttribute('src')) : '';
  }

  Stepper.prototype.go = function (k, from) {
    if (!this.rows.length) return;
    lastUsed = this;
    this.at = Math.max(0, Math.min(this.rows.length - 1, k));
    this.paint(from);
  };

  /* Lights the current row and its marks, says where the reader is, and
     keeps in view what the reader steps from: the row in a trace, the mark
     in a graph. */
  Stepper.prototype.paint = function (from) {
    var self = this, row = this.rows[this.at], line = row ? row.getAttribute('data-line') : null, lit = [];
    this.rows.forEach(function (r) {
      var on = r === row;
      r.classList.toggle('stepper-current', on);
      if (on) r.setAttribute('aria-current', 'step'); else r.removeAttribute('aria-current');
    });
    this.figures.forEach(function (f) {
      var layout = layoutOf(f);
      var has = f.marks.some(function (m) { return m.layout === layout; });
      f.marks.forEach(function (m) {
        // (an image none of whose layouts is named: the first layout's marks)
        var on = m.line === line && (has ? m.layout === layout : m.layout === (f.marks[0] || {}).layout);
        m.el.hidden = !on;
        if (on) lit.push(m.el);
      });
    });
    var said = this.say(row, lit.length > 0);
    this.bars.forEach(function (b) {
      b.prev.disabled = self.at <= 0;
      b.next.disabled = self.at >= self.rows.length - 1;
      b.status.textContent = '';
      said.forEach(function (part) { b.status.appendChild(part.cloneNode(true)); });
    });
    if (from === 'trace' && row) row.scrollIntoView({block: 'nearest'});
    if (from === 'figure' && lit.length) lit[0].scrollIntoView({block: 'nearest'});
  };

  /* Where the reader is: "line 3 of 6, T0 completer" and the row's text
     (its event not in the graph: said so). */
  Stepper.prototype.say = function (row, drawn) {
    var where = document.createElement('span'), what = document.createElement('span');
    where.className = 'stepper-where';
    what.className = 'stepper-what';
    if (!row) {
      where.textContent = 'Step through the trace: next step, a row, or the j and k keys.';
      return [where];
    }
    var cells = row.querySelectorAll('td'), thread = 'main', text = '';
    for (var i = 1; i < cells.length; i++) {
      if (cells[i].textContent.trim()) {
        text = cells[i].textContent.trim();
        if (row.classList.contains('main')) text = text.replace(/^main: /, '');
        else thread = row.stepperThreads[i] || '';
        break;
      }
    }
    where.textContent = 'line ' + row.getAttribute('data-line') + ' of ' + this.last + ', ' + thread +
                        (drawn || !this.figures.length ? '' : ' (not in the graph)');
    what.textContent = text;
    what.title = text;
    return [where, what];
  };

  /* A key in a trace or a graph (or anywhere, for j and k: from is null). */
  Stepper.prototype.key = function (e, from) {
    if (e.altKey || e.ctrlKey || e.metaKey || e.defaultPrevented) return false;
    var t = e.target;
    if (t && (t.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName))) return false;
    var k = e.key, step = {ArrowDown: 1, ArrowRight: 1, j: 1, ArrowUp: -1, ArrowLeft: -1, k: -1}[k];
    if (from === null && k !== 'j' && k !== 'k') return false;
    if (step) this.go(this.at < 0 && step > 0 ? 0 : this.at + step, from || this.inView().kind);
    else if (k === 'Home') this.go(0, from);
    else if (k === 'End') this.go(this.rows.length - 1, from);
    else return false;
    return true;
  };

  /* How much of the stepper's parts the window shows, and which shows most. */
  Stepper.prototype.inView = function () {
    var best = {seen: 0, kind: null};
    document.querySelectorAll('[data-stepper]').forEach(function (part) {
      if (part.getAttribute('data-stepper') !== this.name) return;
      var r = part.getBoundingClientRect();
      var seen = Math.max(0, Math.min(r.bottom, window.innerHeight) - Math.max(r.top, 0));
      if (seen > best.seen) best = {seen: seen, kind: part.matches('div.trace') ? 'trace' : 'figure'};
    }, this);
    return best;
  };

  /* #step=N or #step=NAME:N: start there. */
  function fromAddress() {
    var m = /(?:^#|&)step=(?:([^:&]+):)?([0-9]+)/.exec(window.location.hash);
    if (!m) return;
    steppers.forEach(function (s) {
      if (m[1] && decodeURIComponent(m[1]) !== s.name) return;
      for (var k = 0; k < s.rows.length; k++)
        if (s.rows[k].getAttribute('data-line') === m[2]) { s.go(k); break; }
    });
  }

  function start() {
    var byName = {}, names = [];
    document.querySelectorAll('[data-stepper]').forEach(function (part) {
      var name = part.getAttribute('data-stepper');
      if (!byName[name]) { byName[name] = []; names.push(name); }
      byName[name].push(part);
    });
    names.forEach(function (name) { steppers.push(new Stepper(name, byName[name])); });
    if (!steppers.length) return;
    // j and k anywhere else step the stepper the reader stepped last, while
    // the window shows some of it; else the one it shows most of.
    document.addEventListener('keydown', function (e) {
      if (e.target && e.target.closest && e.target.closest('.stepper-part')) return; // (its own handler)
      var best = lastUsed && lastUsed.inView().seen > 0 ? lastUsed : null, seen = 0;
      if (!best) steppers.forEach(function (s) { var v = s.inView().seen; if (v > seen) { seen = v; best = s; } });
      if (best && best.key(e, null)) e.preventDefault();
    });
    fromAddress();
    window.addEventListener('hashchange', fromAddress);
    document.documentElement.classList.add('stepper-ready');
  }

  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
  else start();
})();
