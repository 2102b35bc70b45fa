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

package v1beta1

// Annotations and labels the scheduler reads, as Volcano names them.
const (
	// KubeGroupNameAnnotationKey puts a pod in a PodGroup.
	KubeGroupNameAnnotationKey = "scheduling.k8s.io/group-name"
	// VolcanoGroupNameAnnotationKey puts a pod in a PodGroup (Volcano's own key).
	VolcanoGroupNameAnnotationKey = "scheduling.volcano.sh/group-name"
	// QueueNameAnnotationKey names the queue of a pod or namespace.
	QueueNameAnnotationKey = "scheduling.volcano.sh/queue-name"
	// GroupMinMemberAnnotationKey is the minMember of a PodGroup made for a plain pod's owner.
	GroupMinMemberAnnotationKey = "scheduling.volcano.sh/group-min-member"
	// GroupMinResourcesAnnotationKey is the minResources of a PodGroup made for a plain pod's owner.
	GroupMinResourcesAnnotationKey = "scheduling.volcano.sh/group-min-resources"
	// JobWaitingTime is the SLA waiting time of a PodGroup (a Go duration).
	JobWaitingTime = "volcano.sh/sla-waiting-time"
	// LegacyJobWaitingTime is the former key of JobWaitingTime.
	LegacyJobWaitingTime = "sla-waiting-time"
	// PodPreemptable marks a pod or PodGroup as preemptable.
	PodPreemptable = "volcano.sh/preemptable"
	// NodeGroupNameKey is the node label naming a node's node group.
	NodeGroupNameKey = "volcano.sh/nodegroup-name"
	// QueueRequestedStateAnnotationKey records on a Queue the state the last OpenQueue or
	// CloseQueue Command asked for (Open or Closed). The scheduler, the only writer of a
	// Queue's status, moves status.state towards it: Open at once, Closing while the queue
	// still holds PodGroups, then Closed. Caldera only.
	QueueRequestedStateAnnotationKey = "caldera.sh/queue-requested-state"
	// QueueCommandAnnotationKey records on a Queue the UID of the Command that set
	// QueueRequestedStateAnnotationKey, so the Command is carried out once. Caldera only.
	QueueCommandAnnotationKey = "caldera.sh/queue-command"
)
