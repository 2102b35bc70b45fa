/*
Copyright 2026 The Caldera Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package policy

import (
	"container/list"
	"sync"
)

// lru is a bounded, concurrency-safe cache from a string key to a value built once per key. The
// value of a key is built outside the lock, once even when several goroutines ask for it at the
// same time; failures are values too, so they are cached like successes. The least recently
// used key is evicted when the cache is full. A size of 0 or less disables caching.
type lru[V any] struct {
	mu    sync.Mutex
	size  int
	order *list.List
	items map[string]*list.Element
}

type lruEntry[V any] struct {
	key   string
	once  sync.Once
	value V
}

func newLRU[V any](size int) *lru[V] {
	return &lru[V]{size: size, order: list.New(), items: make(map[string]*list.Element)}
}

// get returns the value of key, building it with build if it is not cached.
func (c *lru[V]) get(key string, build func() V) V {
	if c.size <= 0 {
		return build()
	}
	c.mu.Lock()
	el, ok := c.items[key]
	if ok {
		c.order.MoveToFront(el)
	} else {
		el = c.order.PushFront(&lruEntry[V]{key: key})
		c.items[key] = el
		for c.order.Len() > c.size {
			last := c.order.Back()
			c.order.Remove(last)
			delete(c.items, last.Value.(*lruEntry[V]).key)
		}
	}
	e := el.Value.(*lruEntry[V])
	c.mu.Unlock()
	e.once.Do(func() { e.value = build() })
	return e.value
}

// len returns the number of cached keys.
func (c *lru[V]) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.order.Len()
}
