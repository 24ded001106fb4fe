// Package remote replicates journals to S3-compatible object storage and
// rebuilds them anywhere: `journal remote add|list|remove`, `journal push`,
// `journal clone`, `journal verify --remote` and `journal team`.
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
// Under a remote's bucket and prefix: chunks and contents' manifests by
// their IDs, and per workspace its immutable segments of events (the lines
// `journal export` writes), its head, and its signed checkpoints (and
// witnesses' cosigned copies beside them). docs/DESIGN.md ("The remote
// layout") has every object's name and bytes, plain and sealed.
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
// The team index (team.go): after the head, a push updates the
// workspace's index — pages of at most 256 events' export lines, and an
// index object naming them, written with If-Match — so `journal team`
// reads a workspace's newest events without its segments. ReadTeam checks
// each page as a segment and chains it back from the head's hash; an index
// or page that fails is named and the workspace read from its segments.
// The index also names the git repository the workspace is a checkout of
// (Repository: its root commits, as PushOptions.Repository gives them),
// by which `journal team blame` finds a repository's workspaces
// (TeamRepository).
//
// Nothing deletes chunks or contents on a remote: local gc never touches
// it, so no workspace's history loses what it shares with another.
//
// # Encryption and crypto-shredding
//
// What Object Lock keeps cannot be deleted, so a value a redaction takes
// out (journal redact: an event's arguments, a content's bytes) would stay
// in a --retain remote for years. An encrypted remote (remote add --keys
// s3://other-bucket/prefix; a --retain remote is encrypted unless added
// with --plain) seals what it is sent with keys it keeps in a key store,
// and a redaction destroys the keys (crypto-shredding): the sealed objects
// stay, locked, and no longer open for anyone.
//
// The key store is a bucket and prefix on the same endpoint and
// credentials, and must be another bucket than the data's (Open refuses
// the data bucket, and a bucket whose Object Lock puts a default
// retention on what is written, which would lock the keys): the issue's
// rule that holding the data bucket must not give the keys, and the
// boundary S3 draws its policies, replication and Object Lock at. It may
// be versioned: a shred deletes every version.
//
// Sealing: XChaCha20-Poly1305 (golang.org/x/crypto), "JRE1" then the
// ciphertext and tag; the associated data is the object's ID (a chunk's,
// a content's) or the event's hash, so a ciphertext moved under another
// name does not open. Each key is derived from the bytes it seals (BLAKE3
// in key derivation mode, a context string per kind: chunk, manifest,
// arguments) and seals only those, so the nonce is derived from the key
// and the associated data.
// Convergent keys keep what plain remotes have: a chunk is one object
// whoever pushes it, workspaces share it, and two writers of one segment
// write the same bytes. They let whoever holds a plaintext confirm that a
// ciphertext is its — which the object's name (the blake3 ID of the
// plaintext) and the events' content IDs let anyone do anyway; a salted
// event's arguments are sealed with their 16-byte salt, so no guess of
// them can be confirmed.
//
// Each object is sealed with its own key (chunks, manifests listing their
// chunks' keys, each event's arguments and salt apart from the rest of its
// line, which stays readable), and a marker object says the prefix is
// encrypted: a plain push to it, and a plain open, are refused, and so is
// an encrypted one over a prefix holding plain objects. The keys are kept
// in the key store, one key file beside each segment: the keys of its
// events' arguments and of every content its events name (docs/DESIGN.md).
//
// A push writes a segment's key file before the segment, and both before
// the head names them, so nothing the head names lacks its keys; rolled-up
// segments' key files are deleted with them. A clone or verify reads a
// segment's key file with it and keeps the contents' keys of the segments
// before (an event names as before a content an earlier segment named as
// after).
//
// Shredding (ShredStore): every key file of the workspace — the ones the
// head names and any a roll-up left, found by listing versions — is
// rewritten without the keys of the redacted events' arguments and of
// the redacted contents, and every older version of it deleted. A content's
// key opens its manifest, which holds its chunks' keys: once it is gone,
// a chunk that no other content of the workspace names has its key in no
// object anyone holds. A chunk another unredacted content names stays
// readable through that content, as it stays in the local store. Someone
// holding the whole data bucket and every remaining key holds
// ciphertexts, names and the keys of other values: the redacted bytes
// cannot be computed from them. The push that carries a redact event
// shreds before it writes anything, so a failure leaves the head behind
// the redact event and the next push shreds again (ShredStore is
// idempotent); `journal redact` shreds at once on every remote the
// journal pushes to (Shred), and reports those it could not.
//
// Afterwards a clone imports the redacted events without their arguments
// (and the redact event, which the clone's journal applies as its source
// did) and writes no file whose content was redacted
// (CloneReport.Withheld); a key missing that no redaction names is damage
// to it (a clone --at an event before the redaction takes the value as
// withheld);
// verify checks the rest as before and reports each value whose key is
// gone as redacted when a redact event of the workspace names it — a key
// gone that no redaction names, or a redacted value whose key is still
// there, is a problem.
//
// An event written before salting hashed its arguments: once they are
// shredded its hash can no longer be recomputed. Verify checks its links
// and reports it redacted when a redact event names it
// (Redaction.Unsalted); a clone refuses it, naming it.
//
// What it cannot do: a redaction is one workspace's. Another workspace on
// the same remote that holds the same content has its key in its own key
// files, and keeps it readable until that workspace redacts it too. On a
// plain remote nothing is shredded: its segments hold the arguments and
// its objects the contents, under Object Lock until their retention ends;
// Shred reports such remotes (ShredReport.NotShredded) for `journal
// redact` to name. Encrypting an existing plain prefix is not done in
// place: an encrypted remote needs a prefix of its own, to which a push
// sends the workspace's whole history again.
//
// Not built yet (issue #19): a remote gc (retention on the remote, by
// reference counting across every workspace's segments); packing small
// chunks into pack objects (a first push of 100,000 small edits sends
// 200,000 objects).
package remote
