// Runs a Python file under MicroPython's WebAssembly port, on Node.js:
//
//   node mpy_run.mjs MICROPYTHON_MJS SCRIPT DIR...
//
// MICROPYTHON_MJS is micropython.mjs of the npm package
// @micropython/micropython-webassembly-pyscript (the Makefile installs it).
// Each DIR's .py files are copied into MicroPython's own filesystem (in
// memory) and its folder put on sys.path, first DIR first; SCRIPT runs as
// __main__. Exit status: 0, or 1 for an uncaught exception (its traceback on
// stderr) or SystemExit.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const [mjs, script, ...dirs] = process.argv.slice(2);
const { loadMicroPython } = await import(pathToFileURL(mjs).href);
const mp = await loadMicroPython({
  heapsize: 8 * 1024 * 1024,
  stdout: (line) => process.stdout.write(line + "\n"),
  stderr: (line) => process.stderr.write(line + "\n"),
});

const folders = dirs.map((dir, i) => {
  const folder = `/path${i}`;
  mp.FS.mkdir(folder);
  for (const name of readdirSync(dir).filter((n) => n.endsWith(".py"))) {
    mp.FS.writeFile(`${folder}/${name}`, readFileSync(join(dir, name)));
  }
  return folder;
});

try {
  mp.runPython(`import sys\nfor p in reversed(${JSON.stringify(folders)}):\n    sys.path.insert(0, p)`);
  mp.runPython(readFileSync(script, "utf8"));
} catch (error) {
  if (error.name !== "PythonError") throw error;
  if (error.type !== "SystemExit") process.stderr.write(error.message);
  process.exitCode = 1;
}
