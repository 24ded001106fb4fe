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
	return p.sealContent(ctx, id, true)
}

// sealContent is sealedContent; without send it only derives the
// content's key, from the journal's bytes (the remote has it).
func (p *pusher) sealContent(ctx context.Context, id snapshot.ID, send bool) error {
	p.mu.Lock()
	_, done := p.keys[id]
	p.mu.Unlock()
	if done {
		return nil
	}
	size, chunks, err := p.local(id)
	if err != nil || chunks == nil {
		if send {
			p.missing(chunks, err)
		}
		return err
	}
	single := len(chunks) == 1 && chunks[0] == id
	there := !send // a manifest there: its chunks are there too (sent before it)
	if !single && send {
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
		if there && send {
			p.count(func(r *PushReport) { r.ContentsThere++ })
		} else if !there {
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

// rollKeys gives the key file of big, the segment a run of small ones is
// rolled into, the keys of every content its events name: derived from
// the journal's bytes, or, for a content the journal no longer holds
// (gc), taken from the run's own key files, which the roll-up deletes.
func (p *pusher) rollKeys(ctx context.Context, run []Segment, big *builtSegment) error {
	var lacking []snapshot.ID
	for _, id := range distinct(big.ids) {
		if err := p.sealContent(ctx, id, false); err != nil {
			return err
		}
		p.mu.Lock()
		if _, ok := p.keys[id]; !ok {
			lacking = append(lacking, id)
		}
		p.mu.Unlock()
	}
	for _, sg := range run {
		if len(lacking) == 0 {
			break
		}
		f, err := p.s.readKeys(ctx, sg.Key)
		if err != nil {
			return err
		}
		left := lacking[:0]
		for _, id := range lacking {
			if k, ok := f.contents[id]; ok {
				big.keys.contents[id] = k
			} else {
				left = append(left, id)
			}
		}
		lacking = left
	}
	return nil
}
