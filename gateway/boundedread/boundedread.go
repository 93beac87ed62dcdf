// Package boundedread reads a body whole, up to a bound, into one buffer
// sized from the length the sender declared.
//
// io.ReadAll starts at 512 bytes and grows by copying; bytes.Buffer's
// ReadFrom always wants 512 bytes free, so even a buffer grown to the
// declared length is grown again before the end is seen. Request and
// answer bodies on the gateway's hot paths are small and declare their
// length, so sizing the buffer from it reads each in one allocation.
package boundedread

import "io"

// initialSize is io.ReadAll's first allocation, used when no length is
// declared (or the declared one is over the limit).
const initialSize = 512

// All reads r to its end, but at most limit+1 bytes, so that a caller can
// tell a body longer than limit (len(b) > limit). declared is the length
// the sender announced, or -1. On an error other than io.EOF, b holds
// what was read before it.
func All(r io.Reader, declared, limit int64) (b []byte, err error) {
	size := int64(initialSize)
	if declared >= 0 && declared <= limit {
		size = declared + 1 // room to see the end without growing
	}
	b = make([]byte, 0, size)
	lr := io.LimitedReader{R: r, N: limit + 1}
	for {
		n, err := lr.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return b, err
		}
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
	}
}
