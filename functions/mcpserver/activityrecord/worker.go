package activityrecord

import (
	"context"
	"time"
)

// writeAttempts and writeTimeout bound the writing of one batch: a batch
// that still fails is dropped, counted and logged, and the worker goes on.
const (
	writeAttempts = 4
	writeTimeout  = 10 * time.Second
)

// retryWait is the wait before attempt n+1 (a variable for tests).
var retryWait = func(n int) time.Duration { return time.Duration(n) * 500 * time.Millisecond }

// work writes batches until Close, then writes what is queued.
func (r *Recorder) work() {
	defer close(r.done)
	batch := make([]Row, 0, r.opts.BatchSize)
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	for {
		select {
		case row := <-r.queue:
			batch = r.gather(append(batch[:0], row), timer)
			r.write(batch)
		case <-r.stop:
			r.drain(batch)
			return
		}
	}
}

// gather adds rows to batch until it is full or FlushEvery has passed.
func (r *Recorder) gather(batch []Row, timer *time.Timer) []Row {
	timer.Reset(r.opts.FlushEvery)
	defer timer.Stop()
	for len(batch) < r.opts.BatchSize {
		select {
		case row := <-r.queue:
			batch = append(batch, row)
		case <-timer.C:
			return batch
		case <-r.stop:
			return r.fill(batch)
		}
	}
	return batch
}

// fill adds rows already queued to batch, up to BatchSize, without
// waiting.
func (r *Recorder) fill(batch []Row) []Row {
	for len(batch) < r.opts.BatchSize {
		select {
		case row := <-r.queue:
			batch = append(batch, row)
		default:
			return batch
		}
	}
	return batch
}

// drain writes every row still queued; no row is offered any more.
func (r *Recorder) drain(batch []Row) {
	for {
		if batch = r.fill(batch[:0]); len(batch) == 0 {
			return
		}
		r.write(batch)
	}
}

// write records batch, retrying a failed write; a batch that cannot be
// written is dropped, counted and logged.
func (r *Recorder) write(batch []Row) {
	var err error
	for n := range writeAttempts {
		if n > 0 {
			r.m.batches.WithLabelValues("retried").Inc()
			time.Sleep(retryWait(n))
		}
		ctx, cancel := context.WithTimeout(context.Background(), writeTimeout)
		var added int
		added, err = r.opts.Store.Insert(ctx, batch, r.opts.Now())
		cancel()
		if err == nil {
			r.m.batches.WithLabelValues("written").Inc()
			r.m.rows.WithLabelValues("written").Add(float64(len(batch)))
			if dup := len(batch) - added; dup > 0 {
				// A retried batch whose first answer was lost.
				r.opts.Logger.Info("activityrecord: rows already recorded were skipped", "rows", dup)
			}
			return
		}
	}
	r.m.batches.WithLabelValues("failed").Inc()
	r.m.rows.WithLabelValues("dropped_write_failed").Add(float64(len(batch)))
	r.opts.Logger.Error("activityrecord: a batch of the activity record could not be written and was dropped",
		"rows", len(batch), "attempts", writeAttempts, "error", err.Error())
}
