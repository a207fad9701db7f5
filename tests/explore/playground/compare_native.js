// compare_native.js EXPLORE_LITMUS_JS EXPLORE_LITMUS FILE.litmus...: the
// browser's explore_litmus (Emscripten's build, one script) must print what
// the native program prints for each file: its final states, its counts of
// executions (herd7's Positive and Negative), its race verdict, a refusal's
// line and column, the schedules the search ran, and the same exit
// status. Only the Time line may differ. (The schedules differed once: the
// search named an object in an allocated block by a number above every
// 64-bit address, which a 32-bit pointer cannot hold; path.c now interns
// the names.) Exit status 1 on a difference.
'use strict';
const { execFileSync } = require('child_process');
const fs = require('fs');
const path = require('path');

const [script, native, ...files] = process.argv.slice(2);
const factory = require(path.resolve(script));
const ignored = /^Time /;

function keep(text) {
    return text.split('\n').filter((line) => !ignored.test(line)).join('\n');
}

// The native program, run where the file is, on its name alone, so that
// a message naming the file reads the same both ways.
function runNative(file) {
    try {
        const out = execFileSync(native, [path.basename(file)], { cwd: path.dirname(file), encoding: 'utf8',
                                                                   stdio: ['ignore', 'pipe', 'pipe'] });
        return { status: 0, out };
    } catch (e) {
        return { status: e.status, out: (e.stdout || '') + (e.stderr || '') };
    }
}

// The browser's, as a page runs it: the file written into its own file
// system, main called once on a fresh instance.
async function runWasm(file) {
    let out = '';
    let status = 0;
    const mod = await factory({ print: (s) => { out += s + '\n'; }, printErr: (s) => { out += s + '\n'; },
                                onExit: (code) => { status = code; }, quit: (code) => { status = code; } });
    mod.FS.writeFile('/' + path.basename(file), fs.readFileSync(file, 'utf8'));
    mod.FS.chdir('/');
    try {
        const ret = mod.callMain([path.basename(file)]);
        if (typeof ret === 'number')
            status = ret;
    } catch (e) {
        if (e && typeof e.status === 'number')
            status = e.status;
        else
            throw e;
    }
    return { status, out };
}

async function main() {
    let failed = 0;
    for (const file of files) {
        const n = runNative(file);
        const w = await runWasm(file);
        const native = keep(n.out).split('\n').sort().join('\n');
        const wasm = keep(w.out).split('\n').sort().join('\n');
        const same = n.status === w.status && native === wasm;
        if (!same) {
            ++failed;
            console.log(`explore_litmus.wasm: ${path.basename(file)}: DIFFERS (exit ${n.status} native, ${w.status} wasm)`);
            console.log('--- native\n' + keep(n.out) + '\n--- wasm\n' + keep(w.out));
        }
    }
    console.log(`explore_litmus.wasm: ${files.length - failed} of ${files.length} files give the native program's ` +
                'states, counts, schedules, race verdicts and exit status');
    process.exit(failed ? 1 : 0);
}

main().catch((e) => { console.error(e); process.exit(2); });
