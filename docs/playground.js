// playground.js: the litmus playground (docs/playground.md). The reader
// picks a test of the chapter (embedded in the page by the site's generator,
// docs/generator/lockstep_site/playground.py) or writes one, and Run hands it
// to explore_litmus built for the browser (tests/explore/playground), in a
// Web Worker so that the page never freezes. The result is drawn as the
// chapter shows it: the final states and their counts, Positive/Negative,
// the race verdict, the graphs, the forbidden candidate and why.
// Plain ES2017, no library; it works from file:// with no server.
(function () {
  'use strict';

  // A run longer than this is stopped: the page is no place for it.
  var CAP_SECONDS = 20;
  // A screen this narrow gets the graphs laid out for a phone (the
  // explorer's --graph-width, in points, as the chapter's phone graphs),
  // scaled to the column with their text at LEAST_TEXT_PX or more.
  var NARROW = '(max-width: 720px)', PHONE_GRAPH_PT = 340, LEAST_TEXT_PX = 11;
  var $ = function (id) { return document.getElementById(id); };
  var ui = {pick: $('pg-test'), text: $('pg-text'), run: $('pg-run'), stop: $('pg-stop'), status: $('pg-status'),
            result: $('pg-result'), about: $('pg-about'), chapter: $('pg-chapter')};
  var tests = JSON.parse($('playground-tests').textContent);
  var worker = null, running = null;

  // ---- the worker -----------------------------------------------------------------------

  // What the worker runs, after the module's own text (its factory,
  // ExploreLitmus): one message is one run on a fresh instance (the
  // program exits: EXIT_RUNTIME), the test written into its file system,
  // main called as on the command line, the JSON and the graphs read back.
  function workerMain() {
    var ARGS = ['--candidates', '--json', '/out/r.json', '--graph', '/out/g.svg'];
    function readText(fs, path) {
      try { return fs.readFile(path, {encoding: 'utf8'}); } catch (e) { return null; }
    }
    function graphsOf(fs, json) {  // {path: SVG text} of every graph the JSON names
      var out = {};
      (json ? json.tests : []).forEach(function (t) {
        var paths = t.states.map(function (s) { return s.graph; });
        if (t.forbidden) paths.push(t.forbidden.graph);
        paths.forEach(function (p) { if (p && !(p in out)) out[p] = readText(fs, p); });
      });
      return out;
    }
    self.onmessage = function (e) {
      var job = e.data, err = [], out = [], status = 0, started = performance.now();
      var exited = function (code) { status = code; };
      ExploreLitmus({print: function (s) { out.push(s); }, printErr: function (s) { err.push(s); },
                     onExit: exited, quit: exited}).then(function (mod) {
        mod.FS.mkdir('/in');
        mod.FS.mkdir('/out');
        mod.FS.writeFile('/in/' + job.file, job.text);
        mod.FS.chdir('/in');
        try {
          var width = job.graphWidth ? ['--graph-width', String(job.graphWidth)] : [];
          var ret = mod.callMain(ARGS.concat(width, [job.file]));
          if (typeof ret === 'number') status = ret;
        } catch (x) {
          if (!x || typeof x.status !== 'number') throw x;
          status = x.status;
        }
        var text = status === 0 ? readText(mod.FS, '/out/r.json') : null;
        var json = text ? JSON.parse(text) : null;
        self.postMessage({status: status, json: json, graphs: graphsOf(mod.FS, json), stdout: out.join('\n'),
                          stderr: err.join('\n'), seconds: (performance.now() - started) / 1000});
      }).catch(function (x) {
        self.postMessage({status: -1, stderr: 'the explorer failed in the page: ' + x, seconds: 0});
      });
    };
  }

  // Chrome refuses a worker from a file:// script: the worker is a Blob of
  // the module's text (explore_litmus_page.js holds it as a function) and
  // workerMain's.
  function startWorker() {
    var source = 'var ExploreLitmus = (' + window.lockstepExploreLitmus.toString() + ')();\n(' +
                 workerMain.toString() + ')();\n';
    var url = URL.createObjectURL(new Blob([source], {type: 'text/javascript'}));
    var w = new Worker(url);
    URL.revokeObjectURL(url);
    return w;
  }

  function endWorker() {
    if (worker) worker.terminate();
    worker = null;
  }

  // ---- a run -----------------------------------------------------------------------------

  // The file the test is written to: its name in its first line (`C NAME`),
  // so that an error message names the file the reader would run natively.
  function fileName(text) {
    var m = /^\s*C\s+(\S+)/.exec(text);
    var name = m ? m[1].replace(/[^A-Za-z0-9+._-]/g, '_') : 'test';
    return name + '.litmus';
  }

  function run() {
    if (running) return;
    // (a narrow screen: the graphs laid out for a phone, as the chapter's are)
    var job = {file: fileName(ui.text.value), text: ui.text.value,
               graphWidth: window.matchMedia(NARROW).matches ? PHONE_GRAPH_PT : 0};
    worker = worker || startWorker();
    var started = performance.now();
    running = {job: job, timer: setTimeout(function () { stop('cap'); }, CAP_SECONDS * 1000)};
    worker.onmessage = function (e) { finished(job, e.data, (performance.now() - started) / 1000); };
    worker.onerror = function (e) {
      e.preventDefault();
      finished(job, {status: -1, stderr: 'the explorer failed in the page: ' + e.message}, 0);
    };
    worker.postMessage(job);
    busy(true, 'Running ' + job.file + '…');
  }

  function finished(job, r, seconds) {
    clearTimeout(running.timer);
    running = null;
    busy(false, '');
    show(job, r, seconds);
  }

  // Stop: the worker and its search end at once (a new worker for the next run).
  function stop(why) {
    if (!running) return;
    var job = running.job;
    clearTimeout(running.timer);
    running = null;
    endWorker();
    busy(false, '');
    ui.result.replaceChildren(why === 'cap' ? tooBig(job) : para('pg-stopped', 'Stopped: ' + job.file + ' did not finish.'));
  }

  function busy(on, text) {
    ui.run.disabled = on;
    ui.stop.disabled = !on;
    ui.status.textContent = text;
    ui.result.classList.toggle('pg-stale', on);
  }

  // ---- the result ------------------------------------------------------------------------

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }

  function para(cls, text) { return el('p', cls, text); }

  function code(text) { return el('code', '', text); }

  // A paragraph of text and code spans: parts are strings, or [string] for code.
  function sentence(cls, parts) {
    var p = el('p', cls);
    parts.forEach(function (x) { p.append(Array.isArray(x) ? code(x[0]) : x); });
    return p;
  }

  function tooBig(job) {
    var box = el('div', 'pg-toobig');
    box.append(sentence('pg-error-head', [job.file + ' ran longer than ' + CAP_SECONDS +
      ' s: too big for the page, so it was stopped. Run it natively, where it may take all the time it needs:']));
    box.append(el('pre', 'pg-command', 'build/test/tests/explore/litmus/explore_litmus --candidates ' + job.file));
    box.append(sentence('', ['(after ', ['cmake --workflow --preset test'],
      ', the README\'s command; fewer threads, or fewer stores to a location, make its search smaller.)']));
    return box;
  }

  function show(job, r, seconds) {
    var parts = [];
    if (r.status !== 0 || !r.json) {
      parts.push(sentence('pg-error-head', [job.file + ': the explorer refused it (exit status ' + r.status + '):']));
      parts.push(el('pre', 'pg-error', (r.stderr || r.stdout || '').trim()));
    } else {
      r.json.tests.forEach(function (t) { parts = parts.concat(testResult(t, r.graphs || {}, seconds)); });
    }
    ui.result.replaceChildren.apply(ui.result, parts);
    fitGraphs();
    ui.result.dataset.seconds = seconds.toFixed(3);
  }

  function testResult(t, graphs, seconds) {
    var executions = t.states.reduce(function (n, s) { return n + s.executions; }, 0);
    return [
      sentence('pg-summary', [el('b', '', t.test), ': ' + t.states.length + ' final states, ' + executions +
        ' executions (' + t.schedules + ' schedules), in ' + seconds.toFixed(2) + ' s in this page.']),
      statesTable(t),
      question(t),
      race(t),
      graphsOf(t, graphs),
    ].filter(Boolean);
  }

  // The final states, each with its executions; shaded where the question holds.
  function statesTable(t) {
    var table = el('table', 'litmus-states pg-states');
    var head = el('tr');
    ['final state', 'executions', 'question'].forEach(function (h) { head.append(el('th', '', h)); });
    table.append(head);
    t.states.forEach(function (s) {
      var row = el('tr', s.holds ? 'named' : '');
      var state = el('td', 'pg-state');
      state.append(code(s.state));
      row.append(state, el('td', 'pg-count', String(s.executions)), el('td', '', s.holds ? 'holds' : ''));
      table.append(row);
    });
    return table;
  }

  // herd7's verdict on the question: Positive and Negative, and its word.
  function question(t) {
    if (!t.condition) return null;
    var p = sentence('pg-question litmus-verdict', ['The question ', [t.condition], ': ',
      el('b', '', t.observation), ' (Positive: ']);
    p.append(el('span', 'pg-positive', String(t.positive)), ', Negative: ', el('span', 'pg-negative', String(t.negative)),
             ').');
    return p;
  }

  function race(t) {
    if (!t.race) return para('pg-race pg-norace', 'No data race: every two conflicting accesses are ordered.');
    var p = sentence('pg-race litmus-verdict waits', [el('b', '', 'A data race'),
      ' (herd7: Undef, the behaviour is undefined): ']);
    p.append(el('span', 'pg-race-report', t.race_report || ''));
    return p;
  }

  // Each state's graph, and the forbidden candidate with its cycle: the
  // explorer's own SVG, inlined (once it writes SVG; until then, none).
  function graphsOf(t, graphs) {
    var box = el('div', 'pg-graphs');
    t.states.forEach(function (s) {
      var svg = svgOf(graphs[s.graph]);
      if (svg) box.append(figure([[s.state], ': an execution that ends here (' + s.executions + ' in all)'], svg, ''));
    });
    if (t.forbidden) {
      var cap = [el('b', 'forbidden', 'Forbidden'), ' ', [t.forbidden.state], ': ' + t.forbidden.why];
      var svg = svgOf(graphs[t.forbidden.graph]);
      box.append(svg ? figure(cap, svg, 'pg-forbidden') : sentence('pg-forbidden', cap));
    }
    return box.childNodes.length ? box : null;
  }

  function figure(caption, svg, cls) {
    var f = el('figure', 'pg-graph ' + cls);
    var frame = el('div', 'pg-graph-box');
    frame.append(svg);
    f.append(frame, sentence('pg-caption', caption));
    return f;
  }

  // A graph as wide as its box, but never wider than its own size, nor so
  // narrow that its smallest text falls under LEAST_TEXT_PX: then its box
  // scrolls sideways instead. (Its units are points: 4/3 px each.)
  function fitGraphs() {
    ui.result.querySelectorAll('div.pg-graph-box > svg').forEach(function (svg) {
      var natural = parseFloat(svg.getAttribute('width')) * 4 / 3;
      var sizes = Array.prototype.map.call(svg.querySelectorAll('[font-size]'), function (n) {
        return parseFloat(n.getAttribute('font-size')) * 4 / 3;
      });
      var smallest = Math.min.apply(null, sizes.length ? sizes : [16]);
      if (!(natural > 0)) return;
      var least = natural * LEAST_TEXT_PX / smallest, room = svg.parentElement.clientWidth;
      svg.style.width = Math.min(natural, Math.max(room, least)) + 'px';
    });
  }

  // The explorer's SVG as an element of this page, without anything that
  // could run (a test's own text is in its labels).
  function svgOf(text) {
    if (!text || !/^\s*(<\?xml[^>]*>\s*)?(<!--[^]*?-->\s*)*<svg[\s>]/.test(text)) return null;
    var doc = new DOMParser().parseFromString(text, 'image/svg+xml');
    var svg = doc.documentElement;
    if (svg.nodeName !== 'svg') return null;
    svg.querySelectorAll('script, foreignObject').forEach(function (n) { n.remove(); });
    svg.querySelectorAll('*').forEach(function (n) {
      Array.prototype.slice.call(n.attributes).forEach(function (a) {
        if (/^on/i.test(a.name) || /javascript:/i.test(a.value)) n.removeAttribute(a.name);
      });
    });
    return document.importNode(svg, true);
  }

  // ---- the picker ------------------------------------------------------------------------

  function load(name) {
    var t = tests.find(function (x) { return x.name === name; });
    if (!t) return;
    ui.text.value = t.text;
    ui.about.textContent = t.about;
    ui.chapter.hidden = !t.anchor;
    if (t.anchor) ui.chapter.href = 'litmus.html#' + t.anchor;
  }

  // Once the reader edits the text, the line under the picker says so: the
  // test's own description is no longer the whole story.
  function edited() {
    var t = tests.find(function (x) { return x.name === ui.pick.value; });
    if (t) ui.about.textContent = ui.text.value === t.text ? t.about : 'Your edit of ' + t.name +
      ' (pick another test and back to start again): ' + t.about;
  }

  function setUp() {
    tests.forEach(function (t) {
      var o = el('option', '', t.name);
      o.value = t.name;
      ui.pick.append(o);
    });
    var first = tests.find(function (t) { return t.name === 'MP+rlx'; }) || tests[0];
    if (first) { ui.pick.value = first.name; load(first.name); }
    ui.pick.addEventListener('change', function () { load(ui.pick.value); });
    ui.text.addEventListener('input', edited);
    if (typeof window.lockstepExploreLitmus !== 'function') {
      ui.status.textContent = '';
      ui.result.replaceChildren(noExplorer());
      return;
    }
    ui.run.disabled = false;
    ui.status.textContent = '';
    ui.run.addEventListener('click', run);
    ui.text.addEventListener('keydown', function (e) {  // Ctrl+Enter (⌘+Enter) runs, as in most playgrounds
      if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) { e.preventDefault(); run(); }
    });
    ui.stop.addEventListener('click', function () { stop('stop'); });
    window.addEventListener('resize', fitGraphs);
  }

  // Without Emscripten the site has no explorer for the browser: how to get it.
  function noExplorer() {
    var box = el('div', 'pg-none');
    box.append(sentence('', ['This build of the site has no explorer for the browser: it is built when Emscripten ',
      'is installed (on Debian 12 or Ubuntu 24.04, the package emscripten). Install it, configure again (it then ',
      'says "litmus playground: built with Emscripten") and build the pages:']));
    box.append(el('pre', 'pg-command', 'sudo apt-get install --no-install-recommends emscripten\n' +
      'cmake --preset test\ncmake --workflow --preset docs'));
    box.append(sentence('', ['Meanwhile, each test runs natively:']));
    box.append(el('pre', 'pg-command', 'build/test/tests/explore/litmus/explore_litmus --candidates FILE.litmus'));
    return box;
  }

  setUp();
})();
