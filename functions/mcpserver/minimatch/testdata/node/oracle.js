// Reference oracle for the Go differential tests. Reads one JSON value per
// line on stdin and writes one JSON value per line on stdout.
//
//   node oracle.js          input [pattern, path]; output true/false from
//                           minimatch(path, pattern), or "error" if it throws
//   node oracle.js segment  input a path-segment glob; output what
//                           AST.fromGlob(glob).toMMPattern() returns:
//                           {"lit": string} or {"re": source, "u": bool},
//                           or "error"
'use strict'
const { minimatch, AST } = require('minimatch')
const readline = require('readline')

const mode = process.argv[2] || 'match'
const rl = readline.createInterface({ input: process.stdin, crlfDelay: Infinity })
const out = []

function answer(v) {
  if (mode === 'segment') {
    try {
      const p = AST.fromGlob(v).toMMPattern()
      return typeof p === 'string' ? { lit: p } : { re: p._src, u: p.flags.includes('u') }
    } catch (e) {
      return 'error'
    }
  }
  const [pattern, path] = v
  try {
    return minimatch(path, pattern)
  } catch (e) {
    return 'error'
  }
}

rl.on('line', line => {
  if (line === '') return
  out.push(JSON.stringify(answer(JSON.parse(line))))
  if (out.length >= 1024) {
    process.stdout.write(out.join('\n') + '\n')
    out.length = 0
  }
})
rl.on('close', () => {
  if (out.length) process.stdout.write(out.join('\n') + '\n')
})
