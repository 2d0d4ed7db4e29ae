r"""The closed-form bounds of the paper (public: :mod:`fisherrdp.bounds`).

One module per section: ``fisher_information`` (Prop 5.1, App. E.1, App. F.3), ``renyi_envelopes``
(the model release, Prop 3.1, Theorem 5.1), ``theorems`` (the Fisher criterion of Prop 3.2 in
closed form, Theorems 5.2–5.4, the post-processing envelope) and ``path_bound`` (Prop 3.2 with
the exact Fisher information); ``common`` holds what they share.

Units: the model noise and the latent noise have unit scale (:math:`\sigma = \sigma_z = 1`);
divide norms, bounds :math:`C` and sensitivities :math:`\Delta` by :math:`\sigma` first.
Rényi divergences use the natural logarithm and orders :math:`\alpha > 1`.

Every function broadcasts its array arguments, is compatible with :func:`jax.jit`,
:func:`jax.vmap` and :func:`jax.grad`, and computes in the common floating dtype of its inputs
(float64 when x64 is on, as after ``import fisherrdp``). Array arguments are scalars or arrays
(NumPy or JAX; as in JAX, Python lists are not accepted). Called eagerly with concrete values,
out-of-range arguments raise :class:`ValueError` naming the argument and its valid range; under
a JAX transformation no check is made and out-of-range arguments give NaN or meaningless values.
"""
