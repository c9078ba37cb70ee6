r"""Literate, notebook-driven reproductions of ICLR 2026 papers: each paper's method with its equations, its central experiment at a size that runs on two CPU cores, its claims measured, and its figures.

Modules:

- `iclr26.core`: Seeds, devices, scales, the claims API, results files, progress bars and the house plotting style.
- `iclr26.tinylm`: Offline corpora, tokenizers, tiny Hugging Face causal LMs, a compact training loop, evaluation, generation and a cache of trained models, shared by every paper that needs a language model.
- `iclr26.rl`: The GRPO family for language models: group sampling, verifiable rewards, whitened advantages (sequence- or token-level), zero-variance masking, clipped objectives with a selectable clip centre, k3 KL, a stale-sampler copy for off-policy training, masked forward passes, and an adapter to `trl` for GPU users.
- `iclr26.cli`: The `iclr26` command: list the papers, reproduce them with papermill, print the scoreboard, build the docs site and the README.
- `iclr26.zoo`: The shared pretrained model family: one tokenizer, one offline data mix, three sizes of tiny Llama, committed as fp16 safetensors inside the package and loaded offline with `from_pretrained`.
- `iclr26.discrete_sb`: Paper 10: pairs of distributions on $\{0,\dots,S-1\}^D$ whose Schrödinger bridge is known in closed form, and three solvers evaluated on them.
- `iclr26.scheduling`: Paper 11: a meta-learned initialisation that evolution strategies adapt to each scheduling instance.
- `iclr26.pard`: Paper 12: one target-independent draft model that proposes K tokens in a single forward pass, adapted from an autoregressive draft with conditional drop-token (COD) training.
- `iclr26.uniugg`: Paper 13: one LLM reads a reference image's geometric-semantic features, answers spatial questions, and conditions a latent diffusion model that imagines the scene from a new viewpoint as a 3-D pointmap.
- `iclr26.duet`: Paper 14: a student learns, from queries alone, to imitate the first-token logits of the same model steered by an in-context "forget" prefix, so the forgetting survives removal of the prompt.
- `iclr26.plasticity`: Paper 15: two drop-in non-linearities, Smooth-Leaky and Randomized Smooth-Leaky, whose non-saturating negative branch keeps a network trainable across a long sequence of tasks.
- `iclr26.mrmr`: Loaders for the MRMR layout, the paper's evaluation protocol (nDCG@10, Hit@1-of-4 for Negation, the 11-subtask average), retrievers for its four paradigms, and a synthetic mini-MRMR that runs on a CPU.
- `iclr26.mem1`: Paper 17: an agent that rewrites one compact internal state each turn and forgets everything else, trained end to end on masked trajectories.
- `iclr26.offpolicy_grpo`: Paper 18: GRPO whose advantages and importance ratios come from a stale sampler α = π_{k−v}, with the clip centred on π_k/α.
- `iclr26.mase`: Minimum Average-Strong Equilibrium (MASE) by linear programming, a structured algorithm for graphical games of bounded treewidth, and the exploitability–welfare frontier.
- `iclr26.homdp`: Homomorphism densities $t(F,G)$ as graph embeddings, made edge-level differentially private with a Gaussian mechanism calibrated to degree-bounded sensitivities; zCDP accounting checked against OpenDP, CSL and SBM experiments, and a privacy audit by enumeration and by a distinguishing attack.
- `iclr26.judo`: Paper 21: a multimodal reasoner that first segments the defect by comparing the query with a normal template, then reasons with injected domain knowledge, trained by SFT and GRPO with five rewards.
- `iclr26.coarse`: Convex partitions, exact and MCMC truncated-Gaussian samplers, the coarse-likelihood SGD, EM and midpoint estimators, the Fisher-information test of identifiability (slabs), and linear regression with market friction (Rosett 1959).
- `iclr26.arena`: A- and D-optimal model-pair selection for Bradley–Terry (m-ELO) arenas, with the baselines, an arena simulator on real LMArena skills, and a scheduler API a live arena could call.
- `iclr26.rhd`: Paper 24: the Reasoning Score (logit-lens Jensen–Shannon divergence of late layers, per reasoning step), the RHD hallucination detector built on its patterns, and GRPO-R's step-level potential-based shaping.
- `iclr26.pdns`: Masked (any-order) discrete diffusion samplers for any energy over $\{0,\dots,q-1\}^N$ (Ising, Potts, max-cut/QUBO built in) and Euler–Maruyama SDE samplers in $d$ dimensions, trained by the proximal weighted denoising cross-entropy (proximal WDCE) against the closed-form proximal iterate, compared with plain WDCE, the model-centred proximal reading, β-annealing, the log-variance loss, a path-integral sampler and MCMC.
- `iclr26.lmkan`: Paper 26: lookup-table 2-D spline layers that buy MLP-level capacity for few inference FLOPs.
- `iclr26.dpiv`: DP-2S-GD: noisy, clipped two-stage gradient descent for linear instrumental-variable regression under ρ-zero-concentrated differential privacy, with its accounting, a canary audit, and the 2SLS/OLS baselines on synthetic data and on Card (1995) and Mroz (1987).
- `iclr26.anybcq`: Paper 28: one set of nested bit-planes serves 2-, 3- and 4-bit inference, each precision with its own scales.
- `iclr26.kernels`: Triton kernels of iclr26, installed as ``iclr26.kernels``, and the one dispatch rule they all share."""

__version__ = "0.1.0"
