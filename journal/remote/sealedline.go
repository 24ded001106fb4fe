package remote

import (
	"encoding/json"
	"fmt"

	"github.com/journalfs/journal/journal"
	"github.com/journalfs/journal/snapshot"
)

// sealedLine is a line of an encrypted remote's segment: the event's JSON
// without its arguments and their salt — paths, content IDs, who and when
// stay readable, and for a salted event these are the very bytes its
// chain hash is over — and the arguments and salt sealed under a key kept
// in the key store.
type sealedLine struct {
	Type   string          `json:"type"` // "sealed"
	Seq    uint64          `json:"seq"`
	Hash   snapshot.ID     `json:"hash"`
	Event  json.RawMessage `json:"event"`
	Sealed []byte          `json:"sealed,omitempty"` // seal(key, sealedArgs JSON, hash)
	// Unsalted is set on an event written before salting whose arguments
	// were redacted before it was pushed: its hash covered them, so it
	// can no longer be recomputed (a redact event names it).
	Unsalted bool `json:"redacted_unsalted,omitempty"`
}

// sealedArgs is what a sealed line seals.
type sealedArgs struct {
	Args json.RawMessage `json:"args"`
	Salt []byte          `json:"args_salt,omitempty"`
}

// sealLine returns e's line in an encrypted segment and, if e has
// arguments, the key that seals them (derived from the arguments and
// their salt: two pushes of one event write the same line). unsalted
// marks an event written before salting whose arguments were redacted.
func sealLine(e *journal.Event, unsalted bool) ([]byte, *dataKey, error) {
	c := *e
	args, salt := eventArgs(&c)
	setEventArgs(&c, nil, nil)
	l := sealedLine{Type: "sealed", Seq: e.Seq, Hash: e.Hash, Event: journal.Canonical(&c), Unsalted: unsalted}
	var key *dataKey
	if len(args) > 0 {
		p, err := json.Marshal(sealedArgs{Args: args, Salt: salt})
		if err != nil {
			return nil, nil, fmt.Errorf("remote: seal event %d: %w", e.Seq, err)
		}
		k := convergentKey(kindArgs, p)
		key = &k
		l.Sealed = seal(k, p, e.Hash[:])
	}
	b, err := json.Marshal(&l)
	if err != nil {
		return nil, nil, fmt.Errorf("remote: seal event %d: %w", e.Seq, err)
	}
	return append(b, '\n'), key, nil
}

// openLine reads a sealed line: the event, with its arguments when the
// key file holds their key. withheld reports arguments sealed without a
// key (shredded, or never written): the event is returned without them.
// The event's hash is not checked here.
func openLine(b []byte, keys *keyFile) (e *journal.Event, withheld bool, err error) {
	var l sealedLine
	if err := json.Unmarshal(b, &l); err != nil || l.Type != "sealed" {
		return nil, false, fmt.Errorf("a line that is not an event")
	}
	e = &journal.Event{}
	if err := json.Unmarshal(l.Event, e); err != nil {
		return nil, false, fmt.Errorf("event %d: %v", l.Seq, err)
	}
	if e.Seq != l.Seq {
		return nil, false, fmt.Errorf("event %d under number %d", e.Seq, l.Seq)
	}
	e.Hash = l.Hash
	if len(l.Sealed) == 0 {
		return e, l.Unsalted && !e.Salted(), nil
	}
	k, ok := keys.events[l.Seq]
	if !ok {
		return e, true, nil
	}
	p, err := unseal(k, l.Sealed, l.Hash[:])
	if err != nil {
		return nil, false, fmt.Errorf("event %d: its arguments %v", l.Seq, err)
	}
	var a sealedArgs
	if err := json.Unmarshal(p, &a); err != nil {
		return nil, false, fmt.Errorf("event %d: its sealed arguments: %v", l.Seq, err)
	}
	setEventArgs(e, a.Args, a.Salt)
	if err := e.CheckArgs(); err != nil { // a salted event's digest
		return nil, false, fmt.Errorf("event %d: its arguments are not those its digest names", l.Seq)
	}
	return e, false, nil
}

// eventArgs returns e's arguments and their salt.
func eventArgs(e *journal.Event) (json.RawMessage, []byte) { return e.Args, e.ArgsSalt }

// setEventArgs gives e arguments and a salt (nil, nil: none).
func setEventArgs(e *journal.Event, args json.RawMessage, salt []byte) {
	e.Args, e.ArgsSalt = args, salt
}

// salted reports whether e's chain hash leaves its arguments out.
func salted(e *journal.Event) bool { return e.Salted() }
