// Package analytics owns click events: the Click record, the batched click
// recorder that the link-domain handler and the SDK resolve hand clicks to,
// and the monthly click allowance.
//
// # Recording
//
// Without a spool (below), Record puts a click in a bounded in-memory
// buffer (RecorderOptions.BufferSize, default 20,000) and returns at once;
// it never waits on the database (DESIGN.md, hot paths). When the buffer is full the click is
// still counted but gets no row: it is added to a sum per organization and
// minute that the next flush adds to the monthly counter as one CountOnly
// click carrying the sum as its Weight (Stats.Overflowed). So a load beyond
// what the database can write sheds click rows, never the counts that
// billing and the allowance read, and never slows a redirect down. (An
// overflowing SDK tap is not deduplicated, as a counted-only tap past the
// allowance is not.) Run writes the buffer in batches: as soon as BatchSize
// clicks (default 500) wait, and every FlushInterval (default 1s). A batch
// is one transaction of the Store: one multi-row insert, and the
// organization's monthly counter bumped by the clicks counted. A batch that
// fails is tried again RetryBackoff later (doubling), Retries times (default
// 3), then its clicks are dropped, counted in Stats.Failed and logged by
// number only: IP addresses and user agents are never logged (a recorder
// with a spool never drops a batch).
//
// When Run's context is done, Record stops taking clicks (it returns false)
// and Run writes every click it took before returning, within
// ShutdownTimeout, the overflow sums included. Once Run has returned,
// Stats.Accepted equals Written + Duplicates + CountedOnly + Failed.
//
// # The click spool
//
// A recorder opened with RecorderOptions.SpoolDir (OpenRecorder; the
// binaries always use one) keeps the clicks it accepts in a spool on disk
// instead of the memory buffer, so that a crash of the process loses none
// (issue 16). The spool (spool.go) is a directory of chunk files named by
// a growing sequence number. Record gives the click its id and appends it
// to the active chunk as one record (length, CRC-32C, the click in a
// compact binary form: spool_codec.go) under a mutex, and no fsync. On
// Linux a chunk's file is allocated (1 MiB) and mapped shared into
// memory when it is made, and a record is one copy into the mapping, no
// system call; elsewhere, or when the space cannot be allocated, it is
// one write. Either way the bytes are in the kernel's page cache before
// the redirect answers: what a process wrote survives its death, and only
// a machine crash can lose what the kernel had not yet put on disk. A
// torn last record is recognised by its length or checksum and dropped.
//
// The active chunk is rotated, made immutable (its file cut to its
// records), when it holds BatchSize clicks, reaches 4 MiB or the next
// record does not fit its mapping, or every FlushInterval (the next chunk
// is started under the spool's mutex, the old one cut and closed after
// it, and the writer takes chunks only in their order). The next chunk is
// made (created, allocated and mapped) ahead by a goroutine under the name
// next-chunk, which is no chunk's: the rotation renames it, before any
// record is copied into it, and a next-chunk that a killed process left
// is deleted at open. The writer
// (spool_writer.go) then inserts it as one Batch whose identity is the
// spool's id (random, made once, kept in the directory) and the chunk's
// number, and deletes the file once the transaction has committed. Chunks
// of this process that wait together (under load, while a transaction
// runs) are inserted as one Batch of up to 10,000 clicks, numbered by the
// last, so that the number of transactions does not grow with the load. The
// store records the highest number committed per spool in the same
// transaction as the clicks and the monthly counts
// (BatchStore.InsertClickBatch), so a chunk replayed after a crash between
// commit and delete writes and counts nothing (ErrBatchCommitted); at
// start the writer reads the mark (BatchStore.SpoolMark) and deletes such
// chunks unread. Chunks an earlier process left are written first, in
// order (Stats.Replayed). The active chunk always exists on disk with the
// highest number ever used, so numbers never go back.
//
// A chunk that fails is tried again until it is written, after a wait that
// doubles from RetryBackoff up to MaxRetryBackoff; the log says so when an
// outage begins and when it ends, not per attempt, and nothing is counted
// in Failed. While the database is away the spool grows on disk up to
// SpoolMaxBytes (Stats.SpoolBytes); past it clicks are counted only, in
// the overflow sums, with one warning when it fills and one line when it
// has room again (Stats.SpoolFull). The overflow sums are appended to the
// spool every FlushInterval, past its bound. On shutdown Record stops
// taking clicks, the active chunk is rotated and the writer writes what it
// can within ShutdownTimeout; the rest stays in the spool for the next
// start, neither lost nor Failed. A spool directory is locked (flock) by
// the process that uses it: OpenRecorder fails with ErrSpoolLocked for a
// second one.
//
// One tap records one click: a click whose tap id (the SDK's
// X-Service-Tap-Id) its organization already has is skipped by the store's
// unique index (SPEC.md, resolve rule 3) and counted once, in
// Stats.Duplicates. A click whose link was deleted before the click was
// written is skipped too: deleting a link deletes its clicks (SPEC.md, Link
// states).
//
// # The monthly click allowance
//
// Clicks count toward the organization's monthly click allowance
// (org.Organization.MonthlyClickLimit, per billing month as org.PeriodStart
// defines it). Past it, links keep redirecting and clicks are still counted,
// but their rows are not stored: such a click reaches the store with
// CountOnly set, bumps the counter and writes no row. The counter
// (Store.ClickCount) is a row per organization and month, so checking the
// allowance never counts click rows.
//
// An Allowance, set in RecorderOptions.Allowance, decides CountOnly when a
// click is recorded, without waiting on the database: it keeps each
// organization's limit and count in memory, counts the clicks it allows,
// and reads the store again in the background once its answer is older
// than AllowanceOptions.TTL (default 5s). An organization it has not read
// yet, or that the store does not find, has its clicks stored. The
// allowance is therefore approximate, and errs towards storing: clicks
// allowed by another replica, or still in a buffer when the count is read
// again, are seen only on a later read, so an organization can store a few
// seconds of clicks beyond its limit; it never stores fewer than its limit.
// A tap id counted only is not deduplicated (there is no row to collide
// with).
//
// # Queries
//
// Queries answers the click analytics of issue 15, a time series and a
// breakdown, for the REST handlers and the MCP tool alike, over a
// QueryStore that package store implements with counts rolled up per
// quarter hour and day when the batch is written, scanning raw clicks
// only for the combinations of filters the rollups do not hold (see
// docs/decisions.md, "Click analytics"). Queries widens every window to
// whole slots (Window.OnSlots) after checking the plan's rules on it, so
// that the rollups answer exactly. The store counts clicks per UTC
// quarter hour (Slot) and Queries places
// the quarter hours in local buckets (Buckets, BucketIndex), so that
// every zone and daylight saving change is exact. Installs are counted
// with the click they were attributed to. Clicks counted but not stored
// are kept per organization and quarter hour and reported as
// unstored_clicks.
//
// # Exports
//
// Exports (exports.go) runs the CSV exports of clicks as jobs kept in the
// store, so that they survive restarts and work across replicas: Start
// records a pending job with its filters and its window (whose end is fixed
// then); a worker (Exports.Run, in every API process) claims it under a
// lease with a conditional update, counts its clicks page by page in
// (occurred_at, id) order, recording its progress and renewing the lease
// after each page, and marks it complete. A worker that dies leaves its
// lease to expire and another resumes from the recorded progress; a worker
// that stops hands its job back at once. The CSV is never stored: a
// download streams it from the database in one pass
// (ExportStore.ScanExportClicks, which decodes the stored click segments
// one at a time) on whichever replica is asked, in constant memory.
//
// # Retention
//
// A Purger (purge.go), run every hour by the processes that serve the REST
// API, deletes each organization's clicks, installs, attribution attempts
// and unstored click counts older than its plan's retention
// (org.Limits.Retention), and clears the IP address and IP key of clicks
// older than IPRetention (7 days, attribution's longest default window
// that reads them); a click keeps its country and its network class
// (NetworkClass). Stored clicks are kept in segments (segment.go), which
// it deletes whole and encodes again without IPs; it also finishes
// removing the clicks of deleted links from them. The monthly click counts
// are never deleted. It works in batches through a PurgeStore that package
// store implements.
//
// Package analytics imports neither store, httpapi, bun, fx nor net/http;
// package store implements its Store and UsageStore interfaces.
package analytics
