package mcpserver

import "sync"

// scratch holds byte buffers for text that is copied out before the
// request that built it ends: an answer, which net/http copies to the
// connection, and a tool's JSON text, which is escaped into the result.
// Building each in a fresh allocation cost as many bytes again as the
// answer on every request, and the collector's time with them.
var scratch = sync.Pool{New: func() any {
	b := make([]byte, 0, pooledAnswerMax)
	return &b
}}

// getScratch returns an empty buffer from the pool.
func getScratch() *[]byte {
	bp := scratch.Get().(*[]byte)
	*bp = (*bp)[:0]
	return bp
}

// putScratch returns bp to the pool holding b, what was last built in it
// (nil when building failed: bp keeps its buffer). A buffer grown past
// pooledAnswerMax (a submission's files) is left to the collector rather
// than kept for every later request.
func putScratch(bp *[]byte, b []byte) {
	if cap(b) > pooledAnswerMax {
		return
	}
	if b != nil {
		*bp = b[:0]
	}
	scratch.Put(bp)
}
