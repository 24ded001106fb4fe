// Package remote replicates journals to S3-compatible object storage and
// rebuilds them anywhere: `journal remote add|list|remove`, `journal push`,
// `journal clone` and `journal verify --remote`.
//
// # Client
//
// aws-sdk-go-v2 (service/s3 and config): its default credential chain is the
// standard one people already configure — environment, shared config and
// credentials files and profiles, web identity (EKS, GitHub Actions OIDC),
// container and instance roles — and its PutObject takes If-Match and
// If-None-Match, the conditional writes a workspace's head needs. minio-go
// is smaller but has no web identity flow without extra wiring.
// Credentials are never stored: a remote is a name, a URL, an endpoint and a
// region, kept per user (os.UserConfigDir()/journal/remotes.json), so every
// workspace on the machine can push to it and a fresh machine can clone
// from it.
//
// # Layout
//
// Under a remote's bucket and prefix:
//
//	chunks/<hh>/<id>           a chunk of content, zstd; id is the blake3 of the
//	                           chunk's bytes (hh its first two hex digits)
//	contents/<id>              a content's manifest: "JRM1", uvarint size,
//	                           uvarint n, n × 32-byte chunk IDs in order; id is
//	                           the blake3 of the whole content. A content of
//	                           one chunk has none: that chunk, whose ID is
//	                           the content's, is it (one an older binary
//	                           pushed reads as any manifest)
//	workspaces/<ws>/segments/<first>-<last>.jsonl.zst
//	                           events first..last (20-digit numbers) as the
//	                           lines `journal export` writes (each carries the
//	                           hashed event verbatim), zstd; immutable
//	workspaces/<ws>/head.json  the workspace's head: its segments in order
//	                           (key, events, blake3 of the object), the last
//	                           event and its hash, the chain's base
//	workspaces/<ws>/checkpoints/<size>-<time>.note
//	                           a signed checkpoint of the journal's Merkle
//	                           tree (journal/doc.go), 20-digit tree size and
//	                           Unix nanoseconds; immutable, sent by a push
//	                           after the events it covers
//	workspaces/<ws>/checkpoints/<size>-<time>-<digest>.note
//	                           a copy of it a witness cosigned (more than one
//	                           signature; 16 hex digits of blake3 of the
//	                           note), beside the first copy, which is never
//	                           overwritten; readers merge the copies'
//	                           signatures (Checkpoints)
//
// Chunks and contents are keyed by what they hold, so every workspace
// replicating to one bucket and prefix shares them: ten clones of one
// repository store its files once. A push uploads a content's chunks
// before its manifest and a segment's contents before the segment, and
// moves the head last; an object that exists is not sent again (HEAD
// first), so an interrupted push resumes where it stopped and never
// duplicates an object. Segments continue the journal's hash chain; the
// head is written with If-Match on the ETag it was read with (If-None-Match
// for a new workspace), so two writers for one workspace are detected —
// the second is refused — never interleaved.
//
// A workspace's ID (ws) is made once per journal, at its first push, and
// kept in the journal (journal.Tx.Workspace); a clone keeps its source's.
//
// Reads verify: a segment against the blake3 its head names, every event
// against its hash and its predecessor's, every chunk and content against
// its ID. Verify names every missing or altered object.
//
// With a retention (remote add --retain 7y), every chunk, content,
// segment and checkpoint is written under Object Lock in compliance mode
// until then; a head, which moves, is not. An object a push finds there
// already keeps the retention it was written with.
//
// Continuous replication (Replicate, `journal serve --replicate`) pushes
// after every commit it sees (polling the journal every 100 ms), so it
// leaves many small segments: a push rolls the small segments a head ends
// with into one once there are 32 of them, then deletes them (under Object
// Lock the delete leaves the locked versions; verify reads only what heads
// name). Its state — where the remote stands, the last error — is kept
// beside the journal for status (journal.Replication); `journal push`
// records it too, and gc keeps the events a remote has not received.
//
// Nothing deletes chunks or contents on a remote: local gc never touches
// it, so no workspace's history loses what it shares with another.
//
// Not built yet (issue #19): a remote gc (retention on the remote, by
// reference counting across every workspace's segments); packing small
// chunks into pack objects (a first push of 100,000 small edits sends
// 200,000 objects).
package remote
