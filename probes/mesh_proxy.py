"""A service-mesh sidecar refusing a connection: Istio's Envoy proxy and its RBAC (authorization policy) filter.

In a namespace with Istio sidecar injection every pod's traffic passes its Envoy proxy. When no AuthorizationPolicy
allows a connection, Envoy's RBAC filter closes it; the sidecar's access log gives the response detail
`rbac_access_denied_matched_policy[<policy>]` ('none': no ALLOW policy matched) and an HTTP client gets
"RBAC: access denied". For a distributed job that is the rendezvous or a peer connection being blocked on its way,
the same failure as a firewall dropping the port (kubeflow/trainer#1634: the PyTorchJob ran once the sidecar was off).

Sample input:
    rbac_access_denied_matched_policy[none]
"""
from __future__ import annotations

from doctor.facts.launch import ProxyDenied
from doctor.probing.contract import LineProbe
from doctor.probing.regex import lazy_compile

_MATCHED = lazy_compile(r"\brbac_access_denied_matched_policy\[(?P<policy>[^\]]*)\]")
_CLIENT = "RBAC: access denied"


class MeshProxyDenials(LineProbe):
    name = "mesh_proxy"
    yields = ("net.proxy_denied",)
    triggers = ("rbac_access_denied", _CLIENT)

    def feed(self, line_no: int, line: str) -> None:
        m = _MATCHED.search(line)
        if m:
            self.ctx.emit(ProxyDenied, line_no, line, policy=m["policy"][:120])
        elif _CLIENT in line:
            self.ctx.emit(ProxyDenied, line_no, line)
