package deploy

// The few Kubernetes types the renderer writes, with the fields it sets
// and in the order kubectl prints them. The tests decode every document
// into k8s.io/api's types, rejecting unknown fields.

type meta struct {
	Name        string            `yaml:"name,omitempty"`
	Namespace   string            `yaml:"namespace,omitempty"`
	Labels      map[string]string `yaml:"labels,omitempty"`
	Annotations map[string]string `yaml:"annotations,omitempty"`
}

type object struct {
	APIVersion                   string `yaml:"apiVersion"`
	Kind                         string `yaml:"kind"`
	Metadata                     meta   `yaml:"metadata"`
	AutomountServiceAccountToken *bool  `yaml:"automountServiceAccountToken,omitempty"`
	Spec                         any    `yaml:"spec,omitempty"`
}

type kustomization struct {
	APIVersion string   `yaml:"apiVersion"`
	Kind       string   `yaml:"kind"`
	Namespace  string   `yaml:"namespace"`
	Resources  []string `yaml:"resources"`
}

type serviceSpec struct {
	ClusterIP string            `yaml:"clusterIP"`
	Selector  map[string]string `yaml:"selector"`
	Ports     []servicePort     `yaml:"ports,omitempty"`
}

type servicePort struct {
	Name       string `yaml:"name"`
	Port       int    `yaml:"port"`
	TargetPort string `yaml:"targetPort"`
}

type containerPort struct {
	Name          string `yaml:"name"`
	ContainerPort int    `yaml:"containerPort"`
}

type selector struct {
	MatchLabels map[string]string `yaml:"matchLabels"`
}

type statefulSetSpec struct {
	ServiceName          string        `yaml:"serviceName"`
	Replicas             int           `yaml:"replicas"`
	Selector             selector      `yaml:"selector"`
	Template             podTemplate   `yaml:"template"`
	VolumeClaimTemplates []claimObject `yaml:"volumeClaimTemplates"`
}

type claimObject struct {
	Metadata meta      `yaml:"metadata"`
	Spec     claimSpec `yaml:"spec"`
}

type claimSpec struct {
	AccessModes      []string  `yaml:"accessModes"`
	StorageClassName string    `yaml:"storageClassName,omitempty"`
	Resources        resources `yaml:"resources"`
}

type resources struct {
	Requests map[string]string `yaml:"requests"`
}

type podTemplate struct {
	Metadata meta    `yaml:"metadata"`
	Spec     podSpec `yaml:"spec"`
}

type podSpec struct {
	ServiceAccountName            string      `yaml:"serviceAccountName"`
	AutomountServiceAccountToken  bool        `yaml:"automountServiceAccountToken"`
	RuntimeClassName              string      `yaml:"runtimeClassName,omitempty"`
	RestartPolicy                 string      `yaml:"restartPolicy,omitempty"`
	TerminationGracePeriodSeconds int         `yaml:"terminationGracePeriodSeconds"`
	SecurityContext               podSecurity `yaml:"securityContext"`
	InitContainers                []container `yaml:"initContainers"`
	Containers                    []container `yaml:"containers"`
	Volumes                       []volume    `yaml:"volumes"`
}

type podSecurity struct {
	RunAsNonRoot bool `yaml:"runAsNonRoot"`
	RunAsUser    int  `yaml:"runAsUser"`
	RunAsGroup   int  `yaml:"runAsGroup"`
	FSGroup      int  `yaml:"fsGroup"`
	// FSGroupChangePolicy "OnRootMismatch": the kubelet walks the volume
	// (group rw on every file, setgid on directories) only while its root
	// is not yet the pod's group, not at every mount.
	FSGroupChangePolicy string         `yaml:"fsGroupChangePolicy"`
	SeccompProfile      seccompProfile `yaml:"seccompProfile"`
}

type seccompProfile struct {
	Type string `yaml:"type"`
}

type container struct {
	Name                     string             `yaml:"name"`
	Image                    string             `yaml:"image"`
	Command                  []string           `yaml:"command"`
	Args                     []string           `yaml:"args,omitempty"`
	Ports                    []containerPort    `yaml:"ports,omitempty"`
	Env                      []envVar           `yaml:"env"`
	VolumeMounts             []volumeMount      `yaml:"volumeMounts"`
	TerminationMessagePolicy string             `yaml:"terminationMessagePolicy,omitempty"`
	SecurityContext          containerSecurity  `yaml:"securityContext"`
	Resources                containerResources `yaml:"resources"`
	ReadinessProbe           *probe             `yaml:"readinessProbe,omitempty"`
}

type containerResources struct {
	Requests map[string]string `yaml:"requests"`
	Limits   map[string]string `yaml:"limits"`
}

type probe struct {
	Exec             execAction `yaml:"exec"`
	PeriodSeconds    int        `yaml:"periodSeconds"`
	TimeoutSeconds   int        `yaml:"timeoutSeconds"`
	FailureThreshold int        `yaml:"failureThreshold"`
}

type execAction struct {
	Command []string `yaml:"command"`
}

type containerSecurity struct {
	ReadOnlyRootFilesystem   bool         `yaml:"readOnlyRootFilesystem"`
	AllowPrivilegeEscalation bool         `yaml:"allowPrivilegeEscalation"`
	Capabilities             capabilities `yaml:"capabilities"`
}

type capabilities struct {
	Drop []string `yaml:"drop"`
}

type envVar struct {
	Name      string     `yaml:"name"`
	Value     string     `yaml:"value,omitempty"`
	ValueFrom *envSource `yaml:"valueFrom,omitempty"`
}

type envSource struct {
	SecretKeyRef secretKeyRef `yaml:"secretKeyRef"`
}

type secretKeyRef struct {
	Name string `yaml:"name"`
	Key  string `yaml:"key"`
}

type volumeMount struct {
	Name      string `yaml:"name"`
	MountPath string `yaml:"mountPath"`
	ReadOnly  bool   `yaml:"readOnly,omitempty"`
}

type volume struct {
	Name                  string        `yaml:"name"`
	EmptyDir              *struct{}     `yaml:"emptyDir,omitempty"`
	PersistentVolumeClaim *claimRef     `yaml:"persistentVolumeClaim,omitempty"`
	Secret                *secretVolume `yaml:"secret,omitempty"`
}

type secretVolume struct {
	SecretName  string `yaml:"secretName"`
	DefaultMode int    `yaml:"defaultMode"`
}

type claimRef struct {
	ClaimName string `yaml:"claimName"`
}

type cronJobSpec struct {
	Schedule                   string      `yaml:"schedule"`
	TimeZone                   string      `yaml:"timeZone"`
	ConcurrencyPolicy          string      `yaml:"concurrencyPolicy"`
	StartingDeadlineSeconds    int         `yaml:"startingDeadlineSeconds"`
	SuccessfulJobsHistoryLimit int         `yaml:"successfulJobsHistoryLimit"`
	FailedJobsHistoryLimit     int         `yaml:"failedJobsHistoryLimit"`
	JobTemplate                jobTemplate `yaml:"jobTemplate"`
}

type jobTemplate struct {
	Metadata meta    `yaml:"metadata"`
	Spec     jobSpec `yaml:"spec"`
}

type jobSpec struct {
	BackoffLimit            int         `yaml:"backoffLimit"`
	ActiveDeadlineSeconds   int         `yaml:"activeDeadlineSeconds"`
	TTLSecondsAfterFinished int         `yaml:"ttlSecondsAfterFinished"`
	Template                podTemplate `yaml:"template"`
}

type networkPolicySpec struct {
	PodSelector selector     `yaml:"podSelector"`
	PolicyTypes []string     `yaml:"policyTypes"`
	Ingress     []policyRule `yaml:"ingress,omitempty"`
	Egress      []egressRule `yaml:"egress"`
}

type policyRule struct {
	Ports []policyPort `yaml:"ports"`
}

type egressRule struct {
	To    []peer       `yaml:"to,omitempty"`
	Ports []policyPort `yaml:"ports"`
}

type peer struct {
	IPBlock ipBlock `yaml:"ipBlock"`
}

type ipBlock struct {
	CIDR string `yaml:"cidr"`
}

type policyPort struct {
	Protocol string `yaml:"protocol"`
	Port     int    `yaml:"port"`
}
