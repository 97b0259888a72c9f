package cache

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync"
	"time"
)

// leaseTTL is how long a lease lives without renewal. Leases are renewed
// every leaseTTL/3 while held; a holder on this host that died is detected
// at once (through /proc), so the TTL only matters for other hosts.
var leaseTTL = 30 * time.Second

// claimPollMax bounds the interval between two checks of a lease held by
// another process.
const claimPollMax = 250 * time.Millisecond

// procClaims serialises the claims of this process on each key of each
// cache directory, across every Cache opened on that directory.
var procClaims = struct {
	sync.Mutex
	held map[string]*heldClaim // absolute dir + "\x00" + key → claim held (or being taken)
	next int64
}{held: map[string]*heldClaim{}}

type heldClaim struct {
	id   int64
	done chan struct{} // closed on release
}

// claimState tracks the leases one Cache holds.
type claimState struct {
	mu      sync.Mutex
	mine    map[string]*heldClaim // key → claim of this Cache
	stopCh  chan struct{}         // closed by stop; nil until the renewer runs
	stopped bool
	wg      sync.WaitGroup
}

func (s *claimState) init() { s.mine = map[string]*heldClaim{} }

// Claim takes the lease on key for this process, waiting while another
// holder has it (another goroutine of this process, or a live process).
// Expired leases and leases of dead processes are taken over. The lease is
// renewed in the background until release is called (release is
// idempotent). When ctx ends while waiting, Claim returns ctx.Err().
func (c *Cache) Claim(ctx context.Context, key string) (release func(), err error) {
	if err := c.writable(); err != nil {
		return nil, err
	}
	s := &c.claims
	s.mu.Lock()
	stopped := s.stopped
	s.mu.Unlock()
	if stopped {
		return nil, fmt.Errorf("cache %s: claim %s: the cache is closed", c.dir, key)
	}
	// Within the process: one claim per key at a time.
	pkey := c.absDir + "\x00" + key
	var mine *heldClaim
	for mine == nil {
		procClaims.Lock()
		h, busy := procClaims.held[pkey]
		if !busy {
			procClaims.next++
			mine = &heldClaim{id: procClaims.next, done: make(chan struct{})}
			procClaims.held[pkey] = mine
			procClaims.Unlock()
			break
		}
		procClaims.Unlock()
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-h.done:
		}
	}
	drop, release := c.claimFuncs(key, pkey, mine)
	// Between processes: the lease row.
	wait := 5 * time.Millisecond
	for {
		ok, err := c.tryLease(key, mine.id)
		if err != nil {
			drop()
			return nil, fmt.Errorf("cache %s: claim %s: %w", c.dir, key, err)
		}
		if ok {
			s.mu.Lock()
			s.mine[key] = mine
			s.mu.Unlock()
			break
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			drop()
			return nil, ctx.Err()
		case <-t.C:
		}
		wait = min(2*wait, claimPollMax)
	}
	c.startRenewer()
	return release, nil
}

// TryClaim is Claim without waiting: ok is false when another holder (a
// goroutine of this process, or a live process) has the claim. Expired
// leases and leases of dead processes (gone, or their pid reused: another
// start time) are taken over. A scheduler uses it to run other ready
// stages while another process computes this key, and retries later.
func (c *Cache) TryClaim(key string) (release func(), ok bool, err error) {
	if err := c.writable(); err != nil {
		return nil, false, err
	}
	s := &c.claims
	s.mu.Lock()
	stopped := s.stopped
	s.mu.Unlock()
	if stopped {
		return nil, false, fmt.Errorf("cache %s: claim %s: the cache is closed", c.dir, key)
	}
	pkey := c.absDir + "\x00" + key
	procClaims.Lock()
	if _, busy := procClaims.held[pkey]; busy {
		procClaims.Unlock()
		return nil, false, nil
	}
	procClaims.next++
	mine := &heldClaim{id: procClaims.next, done: make(chan struct{})}
	procClaims.held[pkey] = mine
	procClaims.Unlock()
	drop, release := c.claimFuncs(key, pkey, mine)
	taken, err := c.tryLease(key, mine.id)
	if err != nil || !taken {
		drop()
		if err != nil {
			return nil, false, fmt.Errorf("cache %s: claim %s: %w", c.dir, key, err)
		}
		return nil, false, nil
	}
	s.mu.Lock()
	s.mine[key] = mine
	s.mu.Unlock()
	c.startRenewer()
	return release, true, nil
}

// claimFuncs returns the functions that undo a claim of key by mine: drop
// forgets it in memory, release also deletes its lease row (idempotent).
func (c *Cache) claimFuncs(key, pkey string, mine *heldClaim) (drop, release func()) {
	s := &c.claims
	drop = func() {
		s.mu.Lock()
		if s.mine[key] == mine {
			delete(s.mine, key)
		}
		s.mu.Unlock()
		procClaims.Lock()
		if procClaims.held[pkey] == mine {
			delete(procClaims.held, pkey)
			close(mine.done)
		}
		procClaims.Unlock()
	}
	var once sync.Once
	release = func() {
		once.Do(func() {
			c.db.Exec(`DELETE FROM leases WHERE key = ? AND host = ? AND pid = ? AND pstart = ? AND claim = ?`,
				key, c.self.host, c.self.pid, c.self.start, mine.id)
			drop()
		})
	}
	return drop, release
}

// tryLease takes the lease row of key unless a live holder has it.
func (c *Cache) tryLease(key string, id int64) (bool, error) {
	// A cheap read first, so waiting processes do not queue for the write lock.
	if free, err := c.leaseFree(c.db.QueryRow(`SELECT host, pid, pstart, expires FROM leases WHERE key = ?`, key)); err != nil || !free {
		return false, err
	}
	taken := false
	err := c.withTx(func(tx *sql.Tx) error {
		free, err := c.leaseFree(tx.QueryRow(`SELECT host, pid, pstart, expires FROM leases WHERE key = ?`, key))
		if err != nil || !free {
			return err
		}
		_, err = tx.Exec(`INSERT OR REPLACE INTO leases (key, host, pid, pstart, claim, expires) VALUES (?, ?, ?, ?, ?, ?)`,
			key, c.self.host, c.self.pid, c.self.start, id, time.Now().Add(leaseTTL).UnixNano())
		taken = err == nil
		return err
	})
	return taken, err
}

// leaseFree reports whether the lease row (if any) can be taken: there is
// none, it expired, its holder died, or it is a leftover of this process
// (the process's own claims are serialised in memory, so a row of this
// process with no claim in memory is stale).
func (c *Cache) leaseFree(row *sql.Row) (bool, error) {
	var holder procID
	var expires int64
	err := row.Scan(&holder.host, &holder.pid, &holder.start, &expires)
	if errors.Is(err, sql.ErrNoRows) {
		return true, nil
	}
	if err != nil {
		return false, err
	}
	if time.Now().UnixNano() > expires {
		return true, nil
	}
	if holder == c.self {
		return true, nil
	}
	return c.self.state(holder) == procDead, nil
}

// startRenewer starts the goroutine that renews this process's leases.
func (c *Cache) startRenewer() {
	s := &c.claims
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopCh != nil || s.stopped {
		return
	}
	s.stopCh = make(chan struct{})
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		t := time.NewTicker(leaseTTL / 3)
		defer t.Stop()
		for {
			select {
			case <-s.stopCh:
				return
			case <-t.C:
			}
			s.mu.Lock()
			n := len(s.mine)
			s.mu.Unlock()
			if n > 0 {
				// A failed renewal is retried at the next tick; the lease
				// only lapses after leaseTTL.
				c.db.Exec(`UPDATE leases SET expires = ? WHERE host = ? AND pid = ? AND pstart = ?`,
					time.Now().Add(leaseTTL).UnixNano(), c.self.host, c.self.pid, c.self.start)
			}
		}
	}()
}

// stop ends the renewer and releases every lease this Cache holds.
func (s *claimState) stop(c *Cache) {
	s.mu.Lock()
	s.stopped = true
	ch := s.stopCh
	mine := s.mine
	s.mine = map[string]*heldClaim{}
	s.mu.Unlock()
	if ch != nil {
		close(ch)
		s.wg.Wait()
	}
	for key, h := range mine {
		if c.db != nil && !c.readOnly {
			c.db.Exec(`DELETE FROM leases WHERE key = ? AND host = ? AND pid = ? AND pstart = ? AND claim = ?`,
				key, c.self.host, c.self.pid, c.self.start, h.id)
		}
		pkey := c.absDir + "\x00" + key
		procClaims.Lock()
		if procClaims.held[pkey] == h {
			delete(procClaims.held, pkey)
			close(h.done)
		}
		procClaims.Unlock()
	}
}
