// Package activityrecord keeps the record of mcp-server's tool calls in
// PostgreSQL (public.mcp_activity, docs/activity.md): per call, when, the
// person, the connection, the class, the tool, the outcome and the student
// profiles whose records the answer held.
//
// The Recorder is a toolcall.Hook. Done turns the finished call into a Row
// on the call's goroutine (the students are read from the answer's JSON
// text, never kept) and offers it to a bounded queue without waiting: a
// full queue drops the row, counts it and logs it, so a call never waits
// on the record or fails because of it. One worker takes rows from the
// queue in batches (up to BatchSize, or what arrived within FlushEvery)
// and writes each batch with one call of mcp_activity_record, retrying a
// failed batch a few times; each row carries its own call id, so a batch
// whose answer was lost is not recorded twice. Close stops taking rows and
// writes what is queued, which the gateway calls after its last request
// has finished, so a restart loses nothing that was queued in time.
//
// Writes go through the Store, which main builds on the service-role
// client of the auth layer (mcpauth.ServiceClient): the recorder is a
// background worker that no tool handler reaches, batches mix many people
// (one statement each, where a per-user client would need one per person),
// and no person may write the record, so the table and its insert function
// are closed to every role but the service role.
package activityrecord
