"""gdn: the exact Gated DeltaNet prefill on NVIDIA Hopper, compiled ahead of
time by gdn-opt and run by libgdn_runtime (shipped inside this package).

    import gdn
    o, final_state = gdn.chunk_gated_delta_rule(q, k, v, g, beta,
                                                output_final_state=True)

FLA 0.6.0's entry (fla.ops.gated_delta_rule.chunk_gated_delta_rule), forward
only; see gdn._api for layouts, dtypes and the in-kernel transforms.
Importing gdn needs neither torch nor a GPU.
"""

from ._api import chunk_gated_delta_rule
from ._capi import GdnError

__version__ = "0.1.0"
__all__ = ["chunk_gated_delta_rule", "GdnError", "__version__"]
