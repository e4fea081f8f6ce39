// The workload kinds `gpuadmit audit` lists (cluster/kinds.c), served like the inventory's kinds. Volcano and
// KubeRay are left out on purpose: their CRDs are "not installed" (404), which audit must skip with a note.
package main

func init() {
	for name, r := range map[string]resource{
		"deployments":  {"apps", "v1", "Deployment", true},
		"replicasets":  {"apps", "v1", "ReplicaSet", true},
		"statefulsets": {"apps", "v1", "StatefulSet", true},
		"daemonsets":   {"apps", "v1", "DaemonSet", true},
		"jobs":         {"batch", "v1", "Job", true},
		"cronjobs":     {"batch", "v1", "CronJob", true},
	} {
		resources[name] = r
	}
}
