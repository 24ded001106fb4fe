// Package snapshot stores file contents by their blake3 hash, split into
// content-defined chunks, each compressed with zstd and verified when read.
//
// # Concepts
//
// A content is any byte string (a file's bytes at one moment). Its ID is the
// blake3-256 of those bytes. A content is split by FastCDC (min 2 KiB, average
// 8 KiB, max 64 KiB) into chunks; each chunk is stored once, keyed by its own
// blake3 hash, so a one-line edit of a large file stores only the chunks around
// the edit plus a new chunk list. The cutter (chunk.go) is the package's own,
// cutting exactly where github.com/kalbasit/fastcdc v1.0.0 does (which cut
// every content stored before it; TestCut_MatchesFastCDC and FuzzCut compare
// the two), and faster: only the low 13 bits of the gear hash are tested,
// so it advances two bytes per step through a table of byte pairs
// (BENCHMARKS.md, BenchmarkCut).
//
// # Storage
//
// Three buckets of the journal's bbolt file hold contents: chunks (by
// chunk ID), lists of chunk IDs, and contents' manifests (by content ID);
// their records, versions and the formats that added them are in
// docs/DESIGN.md ("Contents"). The rules:
//
// A chunk is re-hashed after it is decompressed; a mismatch is ErrCorrupt.
// Raw storage is used when zstd does not shrink the chunk (random or
// compressed data). A new chunk of a content stored with its previous
// version as a base (PutDelta, StreamOptions.Base) is stored as a delta
// against the chunks it replaces when that is smaller: ~150 bytes instead of
// ~1.5 KB for a one-line edit of a source file; and when it differs from them
// by at most 256 bytes in one place, as a splice of them, which is found and
// read back without zstd (delta.go). Contents held in memory are stored
// several at once (PutDeltas: a batch's files): every chunk of every content
// is hashed and encoded on every core, and the records put in order by one
// goroutine, which alone uses the transaction.
//
// Long chunk lists are split into lists at content-defined points, so that
// an edit changes one list, not the whole manifest: a one-line edit of a
// 50 MB file costs about one 32 KiB list plus a few chunks. A content whose
// chunks all fit in one list is written inline, without a list record, and
// a content of one chunk has no manifest at all (its chunk is marked
// whole): one record fewer per version of a small file. Records written in
// an older form read as they always did.
//
// # Writing and reading
//
// PutTx stores an in-memory content inside the caller's write transaction (the
// journal puts before- and after-contents in the same transaction as the event
// that names them). PutStream stores a content of any size from an io.Reader,
// committing a transaction per 4 MiB of new (compressed) data, so memory stays
// bounded: a 1 GB file never sits in memory or in one bbolt transaction's
// dirty pages, while an edit of a stored content, whose chunks are mostly
// stored already, commits once; the manifest is written in the last
// transaction. Chunks committed by a PutStream that never completes are
// unreferenced and are reclaimed by garbage collection. Get streams a content
// to an io.Writer and verifies every chunk and, at the end, the whole
// content's hash.
//
// PutStreamWith adds options: the caller may hash the content itself (Sum:
// the engine hashes on the goroutine that produces the content, beside the
// one that cuts it), ask for the content's layout (its chunks' IDs and
// lengths), and pass a Base — a stored content, its layout and its bytes.
// While the new content's next bytes equal the base's next chunk (a memory
// compare), that chunk's ID is taken without cutting or hashing; after a
// difference, chunks are cut and hashed until one equals a base chunk, and
// comparing resumes after it. A cut depends on the chunk's bytes only, so the
// result is exactly that of a fresh put (TestPutStreamWith_Base). The base's
// bytes must be its content for the whole put; its Check is called before the
// manifest is written and fails the put if they may not have been.
//
// Precompress (ahead.go) compresses a content's new chunks (a read
// transaction says which are stored) before the write transaction that
// stores it, outside any lock, into a bounded cache that
// PutDelta and PutDeltas take from: the records are byte-for-byte those made
// inside the transaction (TestPrecompress_SameRecords), the journal's lock
// is held for the puts and the commit only.
//
// Salvage (salvage.go) rebuilds a content from the raw bytes of a damaged
// journal file, for the journal's repair; the whole content's hash decides.
package snapshot
