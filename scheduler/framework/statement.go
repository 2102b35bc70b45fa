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

package framework

import (
	"fmt"

	"github.com/caldera-sh/caldera/scheduler/api"
)

type opKind uint8

const (
	opAllocate opKind = iota
	opPipeline
	opEvict
)

type operation struct {
	kind       opKind
	task       *api.TaskInfo
	node       string
	prevStatus api.TaskStatus
	prevNode   string
	reason     string
	// reserved is set when the task's volumes were assumed on the node.
	reserved bool
	// allocated is set when the task's ResourceClaims were allocated on the node.
	allocated bool
}

// Statement is a transaction over the session: allocations, pipelines and evictions take effect
// in the session at once (so later decisions see them) and reach the cluster only on Commit;
// Discard undoes them in reverse order.
type Statement struct {
	ssn *Session
	ops []operation
}

// NewStatement starts a statement.
func (ssn *Session) NewStatement() *Statement { return &Statement{ssn: ssn} }

// Empty reports whether the statement holds no operation.
func (s *Statement) Empty() bool { return len(s.ops) == 0 }

// Evictions returns the number of evictions the statement holds.
func (s *Statement) Evictions() int {
	n := 0
	for _, op := range s.ops {
		if op.kind == opEvict {
			n++
		}
	}
	return n
}

// own returns the job of a task and the job's own copy of the task, which the statement changes.
func (s *Statement) own(t *api.TaskInfo) (*api.JobInfo, *api.TaskInfo, error) {
	j, ok := s.ssn.Jobs[t.Job]
	if !ok {
		return nil, nil, fmt.Errorf("task %s/%s: job %s is not in the session", t.Namespace, t.Name, t.Job)
	}
	own := j.OwnTask(t.UID)
	if own == nil {
		return nil, nil, fmt.Errorf("task %s/%s is not in its job", t.Namespace, t.Name)
	}
	return j, own, nil
}

func (s *Statement) place(t *api.TaskInfo, nodeName string, status api.TaskStatus, kind opKind) error {
	j, t, err := s.own(t)
	if err != nil {
		return err
	}
	n, ok := s.ssn.Nodes[nodeName]
	if !ok {
		return fmt.Errorf("node %s is not in the session", nodeName)
	}
	if t.Status != api.Pending {
		return fmt.Errorf("task %s/%s is %s, not Pending", t.Namespace, t.Name, t.Status)
	}
	// A task allocated now has its claims' volumes assumed on the node, so the next task does
	// not count on the same ones; Discard gives them back.
	reserved := false
	if kind == opAllocate && s.ssn.volumes != nil && api.UsesClaims(t.Pod) {
		if err := s.ssn.volumes.Reserve(t.Pod, n.Node); err != nil {
			return err
		}
		reserved = true
	}
	// So are its ResourceClaims' devices: a gang that does not fit whole gives them all back.
	allocated := false
	if kind == opAllocate && s.ssn.devices != nil && api.UsesResourceClaims(t.Pod) {
		if err := s.ssn.devices.Reserve(t.Pod, n.Node); err != nil {
			if reserved {
				s.ssn.volumes.Unreserve(t.UID)
			}
			return err
		}
		allocated = true
	}
	s.ops = append(s.ops, operation{kind: kind, task: t, node: nodeName, prevStatus: t.Status, prevNode: t.NodeName, reserved: reserved, allocated: allocated})
	j.UpdateTaskStatus(t, status)
	t.NodeName = nodeName
	n.AddTask(&api.NodeTask{UID: t.UID, Job: t.Job, Namespace: t.Namespace, Name: t.Name, Resreq: t.Resreq, Status: status, Pod: t.Pod})
	if api.HasRequiredAntiAffinity(t.Pod) {
		// From now on the filters depend on each pod's labels.
		s.ssn.antiAffinity = true
	}
	s.ssn.touch(t.Job, nodeName)
	s.ssn.fireAllocate(t, nodeName)
	return nil
}

// Allocate places a pending task on a node with room for it now.
func (s *Statement) Allocate(t *api.TaskInfo, nodeName string) error {
	return s.place(t, nodeName, api.Allocated, opAllocate)
}

// Pipeline promises a pending task a node whose resources are being released.
func (s *Statement) Pipeline(t *api.TaskInfo, nodeName string) error {
	return s.place(t, nodeName, api.Pipelined, opPipeline)
}

// Evict marks a task on a node as releasing, to be evicted on Commit.
func (s *Statement) Evict(t *api.TaskInfo, reason string) error {
	j, t, err := s.own(t)
	if err != nil {
		return err
	}
	if !api.AllocatedStatus(t.Status) {
		return fmt.Errorf("task %s/%s is %s, not running on a node", t.Namespace, t.Name, t.Status)
	}
	n, ok := s.ssn.Nodes[t.NodeName]
	if !ok {
		return fmt.Errorf("node %s is not in the session", t.NodeName)
	}
	s.ops = append(s.ops, operation{kind: opEvict, task: t, node: t.NodeName, prevStatus: t.Status, prevNode: t.NodeName, reason: reason})
	j.UpdateTaskStatus(t, api.Releasing)
	n.AddTask(&api.NodeTask{UID: t.UID, Job: t.Job, Namespace: t.Namespace, Name: t.Name, Resreq: t.Resreq, Status: api.Releasing, Pod: t.Pod})
	s.ssn.touch(t.Job, t.NodeName)
	s.ssn.fireDeallocate(t, t.NodeName)
	return nil
}

// Discard undoes every operation, last first.
func (s *Statement) Discard() { s.discardFrom(0) }

// Mark returns a point of the statement to undo back to with DiscardFrom.
func (s *Statement) Mark() int { return len(s.ops) }

// DiscardFrom undoes the operations made since mark (see Mark), last first.
func (s *Statement) DiscardFrom(mark int) { s.discardFrom(mark) }

// discardFrom undoes the operations from index mark on, last first.
func (s *Statement) discardFrom(mark int) {
	for i := len(s.ops) - 1; i >= mark; i-- {
		op := s.ops[i]
		j := s.ssn.Jobs[op.task.Job]
		n := s.ssn.Nodes[op.node]
		switch op.kind {
		case opAllocate, opPipeline:
			if op.reserved {
				s.ssn.volumes.Unreserve(op.task.UID)
			}
			if op.allocated {
				s.ssn.devices.Unreserve(op.task.UID)
			}
			n.RemoveTask(op.task.UID)
			j.UpdateTaskStatus(op.task, op.prevStatus)
			op.task.NodeName = op.prevNode
			s.ssn.touch(op.task.Job, op.node)
			s.ssn.fireDeallocate(op.task, op.node)
		case opEvict:
			j.UpdateTaskStatus(op.task, op.prevStatus)
			n.AddTask(&api.NodeTask{UID: op.task.UID, Job: op.task.Job, Namespace: op.task.Namespace, Name: op.task.Name,
				Resreq: op.task.Resreq, Status: op.prevStatus, Pod: op.task.Pod})
			s.ssn.touch(op.task.Job, op.node)
			s.ssn.fireAllocate(op.task, op.node)
		}
	}
	s.ops = s.ops[:mark]
}

// Commit hands the operations to the dispatcher: evictions first, then binds of allocated
// tasks and nominations of pipelined ones. The session keeps the tasks in their new states.
func (s *Statement) Commit() {
	var binds []*api.TaskInfo
	for _, op := range s.ops {
		switch op.kind {
		case opEvict:
			s.ssn.dispatcher.Evict(op.task, op.reason)
		case opAllocate:
			binds = append(binds, op.task)
			s.ssn.committed[op.task.UID] = struct{}{}
			if op.reserved {
				s.ssn.volumes.Commit(op.task.UID)
			}
			if op.allocated {
				s.ssn.devices.Commit(op.task.UID)
			}
		}
	}
	if len(binds) > 0 {
		s.ssn.dispatcher.Bind(binds)
	}
	for _, op := range s.ops {
		if op.kind == opPipeline {
			s.ssn.dispatcher.Nominate(op.task, op.node)
		}
	}
	s.ops = nil
}

// Keep ends the statement leaving its operations in the session but sending nothing to the
// cluster: a pipelined job holds what it was given for the rest of the cycle.
func (s *Statement) Keep() { s.ops = nil }
