package remote

import (
	"context"

	"github.com/journalfs/journal/journal"
	"github.com/journalfs/journal/snapshot"
)

// sealedContent is content for an encrypted remote: it sends what the
// remote lacks of content id — its chunks sealed, then its manifest
// sealed — and records the content's key for the segment's key file. A
// key is derived from the bytes it seals, so a content the remote has
// already (this or another workspace's) gets its key from the journal's
// own bytes, without any read of the remote but the manifest's HEAD.
func (p *pusher) sealedContent(ctx context.Context, id snapshot.ID) error {
	p.mu.Lock()
	_, done := p.keys[id]
	p.mu.Unlock()
	if done {
		return nil
	}
	size, chunks, err := p.local(id)
	if err != nil || chunks == nil {
		return err
	}
	single := len(chunks) == 1 && chunks[0] == id
	there := false // a manifest there: its chunks are there too (sent before it)
	if !single {
		if there, err = p.s.exists(ctx, contentKey(id)); err != nil {
			return err
		}
	}
	keys := make([]dataKey, len(chunks))
	for i, c := range chunks {
		var data []byte
		if err := p.j.View(func(tx *journal.Tx) (err error) { data, err = snapshot.ReadChunk(tx.Bolt(), c); return }); err != nil {
			return err
		}
		keys[i] = convergentKey(kindChunk, data)
		if there || p.known(c) {
			continue
		}
		if err := p.putChunk(ctx, c, seal(keys[i], zenc().EncodeAll(data, nil), c[:]), single); err != nil {
			return err
		}
	}
	var key dataKey
	if single {
		key = keys[0]
	} else {
		m := sealedManifest(size, chunks, keys)
		key = convergentKey(kindManifest, m)
		if there {
			p.count(func(r *PushReport) { r.ContentsThere++ })
		} else {
			z := seal(key, m, id[:])
			if _, err := p.s.put(ctx, contentKey(id), z, "", false); err != nil {
				return err
			}
			p.count(func(r *PushReport) { r.Contents++; r.Bytes += int64(len(z)) })
		}
	}
	p.mu.Lock()
	p.keys[id] = key
	p.sent[id] = true
	p.mu.Unlock()
	return nil
}
