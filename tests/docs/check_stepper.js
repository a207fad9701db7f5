// check_stepper.js: what tests/docs/check_stepper.py adds to a page it
// loads (Runtime.evaluate), window.__stepperProbe: what the check reads
// of the page's steppers. Plain JavaScript, no library.
window.__stepperProbe = (function () {
  function read(url) {  // fetch() does not read file: URLs; XMLHttpRequest does (--allow-file-access-from-files)
    return new Promise(function (done, fail) {
      var x = new XMLHttpRequest();
      x.onload = function () { done(x.responseText); }; x.onerror = fail;
      x.open('GET', url); x.send();
    });
  }
  function rect(el) { var r = el.getBoundingClientRect(); return [r.left, r.top, r.width, r.height]; }
  var boxCache = {};
  // The SVG (its TEXT) laid over the image IMG at its size: its event boxes
  // (nodes of class line-N) where the browser draws them, from the image's corner.
  function drawnBoxes(img, text) {
    var r = img.getBoundingClientRect(), holder = document.createElement('div'), boxes = {};
    holder.style.cssText = 'position:absolute;pointer-events:none;opacity:0;left:' + (r.left + scrollX) +
                           'px;top:' + (r.top + scrollY) + 'px;width:' + r.width + 'px;height:' + r.height + 'px';
    holder.innerHTML = text.replace(/^[\s\S]*?(<svg)/, '$1');
    var svg = holder.querySelector('svg');
    svg.setAttribute('width', '100%');
    svg.setAttribute('height', '100%');
    document.body.appendChild(holder);
    var at = holder.getBoundingClientRect();
    svg.querySelectorAll('g.node').forEach(function (g) {
      var shape = g.querySelector('polygon, path, ellipse');
      g.classList.forEach(function (c) {
        var m = /^line-([0-9]+)$/.exec(c), b = shape && shape.getBoundingClientRect();
        if (m && b) (boxes[m[1]] = boxes[m[1]] || []).push([b.left - at.left, b.top - at.top, b.width, b.height]);
      });
    });
    holder.remove();
    return boxes;
  }
  function shown(el) { return el.getClientRects().length > 0 && getComputedStyle(el).visibility !== 'hidden'; }
  function parts(name) {
    return Array.prototype.filter.call(document.querySelectorAll('[data-stepper]'),
                                       function (p) { return p.getAttribute('data-stepper') === name; });
  }
  function rows(name) {
    var out = [];
    parts(name).forEach(function (p) { out = out.concat(Array.prototype.slice.call(p.querySelectorAll('tr[data-line]'))); });
    return out;
  }
  return {
    names: function () {
      var seen = [];
      document.querySelectorAll('[data-stepper]').forEach(function (p) {
        var n = p.getAttribute('data-stepper'); if (seen.indexOf(n) < 0) seen.push(n); });
      return seen;
    },
    lines: function (name) { return rows(name).map(function (r) { return r.getAttribute('data-line'); }); },
    // What the reader sees of stepper NAME: the rows lit, the marks shown
    // (and where), the layout shown, and where each event's box lies in it.
    state: function (name) {
      var figure = parts(name).filter(function (p) { return !p.matches('div.trace'); })[0];
      var img = figure && figure.querySelector('img');
      var out = {lit: [], marks: [], layout: img ? decodeURIComponent((img.currentSrc || img.src).split('/').pop()) : '',
                 boxes: {}, bars: document.querySelectorAll('.stepper-controls').length};
      rows(name).forEach(function (r) {
        if (r.classList.contains('stepper-current')) out.lit.push(r.getAttribute('data-line'));
      });
      parts(name).forEach(function (p) {
        p.querySelectorAll('.stepper-mark').forEach(function (m) {
          if (shown(m)) out.marks.push({line: m.getAttribute('data-line'), rect: rect(m)});
        });
      });
      if (!img) return Promise.resolve(out);
      // The boxes, as offsets from the image's corner: the same at every
      // step of a layout at a width (and read once for it).
      var r = img.getBoundingClientRect(), key = (img.currentSrc || img.src) + ' ' + r.width;
      out.marks.forEach(function (m) { m.rect = [m.rect[0] - r.left, m.rect[1] - r.top, m.rect[2], m.rect[3]]; });
      if (!boxCache[key]) boxCache[key] = read(img.currentSrc || img.src).then(function (text) { return drawnBoxes(img, text); });
      return boxCache[key].then(function (boxes) { out.boxes = boxes; return out; });
    },
    // Each row made current in turn (as a click on it does), and the state then.
    sweep: function (name) {
      var out = [], probe = window.__stepperProbe;
      return rows(name).reduce(function (done, row) {
        return done.then(function () {
          row.click();
          return probe.state(name).then(function (st) { out.push(st); });
        });
      }, Promise.resolve()).then(function () { return out; });
    },
    focusTrace: function (name) {
      var t = parts(name).filter(function (p) { return p.matches('div.trace'); })[0];
      var table = t && t.querySelector('table.trace');
      if (table) { table.scrollIntoView({block: 'center'}); table.focus(); }
      return !!table && document.activeElement === table;
    },
    // The centre of row K (scrolled into view), of a button of the graph's bar.
    rowAt: function (name, k) {
      var r = rows(name)[k]; r.scrollIntoView({block: 'center'});
      var b = r.querySelector('td:last-child').getBoundingClientRect();
      return [b.left + b.width / 2, b.top + Math.min(b.height / 2, 8)];
    },
    buttonAt: function (name, which) {
      var f = parts(name).filter(function (p) { return !p.matches('div.trace'); })[0];
      var bar = f.parentNode.querySelector('.stepper-controls');
      var b = bar && bar.querySelector(which);
      if (!b) return null;
      b.scrollIntoView({block: 'center'});
      var r = b.getBoundingClientRect();
      return [r.left + r.width / 2, r.top + r.height / 2];
    },
    // Nothing focused, the graph in view: where j goes for the page.
    away: function (name) {
      if (document.activeElement) document.activeElement.blur();
      var f = parts(name).filter(function (p) { return !p.matches('div.trace'); })[0];
      f.scrollIntoView({block: 'start'});
      return true;
    },
    // At a phone's width: every control bar within the window and its
    // column, its buttons whole in it, at every row of stepper NAME (each
    // row's text in the bar: the longest may push it wider).
    controlsFit: function (name) {
      var out = [], w = document.documentElement.clientWidth;
      rows(name).forEach(function (row) {
        row.click();
        document.querySelectorAll('.stepper-controls').forEach(function (bar) {
          var r = bar.getBoundingClientRect(), col = bar.parentNode.getBoundingClientRect(), at = ' (at line ' +
                  row.getAttribute('data-line') + ')';
          if (r.left < -0.5 || r.right > w + 0.5)
            out.push('a control bar lies outside the window: ' + Math.round(r.left) + '..' + Math.round(r.right) + ' px of ' + w + at);
          if (r.right > col.right + 0.5)
            out.push('a control bar is wider than its column (' + Math.round(r.width) + ' px in ' + Math.round(col.width) + ')' + at);
          if (bar.scrollWidth > bar.clientWidth + 1)
            out.push('a control bar holds more than it shows (' + bar.scrollWidth + ' px in ' + bar.clientWidth + ')' + at);
          bar.querySelectorAll('button').forEach(function (b) {
            var q = b.getBoundingClientRect();
            if (!shown(b) || q.left < r.left - 0.5 || q.right > r.right + 0.5 || b.scrollWidth > b.clientWidth + 1)
              out.push('the "' + b.textContent + '" button is cut off or outside its bar' + at);
          });
        });
      });
      return out.filter(function (p, i) { return out.indexOf(p) === i; }).slice(0, 5);
    },
    // Without script, or printed: what of the stepper shows.
    quiet: function () {
      var out = [];
      document.querySelectorAll('.stepper-controls').forEach(function (b) {
        if (shown(b) && getComputedStyle(b).display !== 'none') out.push('a control bar shows'); });
      document.querySelectorAll('.stepper-mark').forEach(function (m) {
        if (shown(m)) out.push('the mark of line ' + m.getAttribute('data-line') + ' shows'); });
      document.querySelectorAll('table.trace tr[data-line]').forEach(function (r) {
        var lit = r.classList.contains('stepper-current'), cell = r.querySelector('td:last-child');
        var plain = r.parentNode.querySelector('tr[data-line]:not(.stepper-current):not(.main) td:last-child');
        if (lit && !r.classList.contains('main') && plain &&
            getComputedStyle(cell).backgroundColor !== getComputedStyle(plain).backgroundColor)
          out.push('row ' + r.getAttribute('data-line') + ' is lit');
      });
      return out;
    },
    // Each figure's smallest text as drawn: the smallest font-size in the
    // SVG the browser shows, times the image's scale (its box's width over
    // the SVG's viewBox width).
    textSizes: function () {
      var jobs = [];
      document.querySelectorAll('div.dotgraph img').forEach(function (img) {
        if (!shown(img)) return;
        var url = img.currentSrc || img.src;
        jobs.push(read(url).then(function (text) {
          var svg = new DOMParser().parseFromString(text, 'image/svg+xml').querySelector('svg');
          var vb = (svg.getAttribute('viewBox') || '').split(/[\s,]+/).map(parseFloat);
          var scale = img.getBoundingClientRect().width / vb[2], least = Infinity, which = '';
          svg.querySelectorAll('text').forEach(function (t) {
            var fs = parseFloat(t.getAttribute('font-size'));
            if (fs && fs < least) { least = fs; which = t.textContent.trim(); }
          });
          return {image: decodeURIComponent(url.split('/').pop()), px: least * scale, text: which,
                  shown: Math.round(img.getBoundingClientRect().width), natural: vb[2]};
        }));
      });
      return Promise.all(jobs);
    }
  };
})();
