"""A linear scoring function trained by mini-batch gradient descent over query groups."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from rankframe._engine.evaluate import evaluate
from rankframe._measures._names import parse_measure
from rankframe.ltr._data import LetorData, to_frames
from rankframe.ltr._loss_numpy import loss_and_grad

__all__ = ["TRAINABLE", "FitHistory", "LinearRanker", "validation_score"]

FloatArray = npt.NDArray[np.float64]

#: The losses with a useful gradient. ``"kendall"`` and ``"ndcg"`` are piecewise constant in the
#: scores (zero gradient almost everywhere): they are evaluation losses, not training losses.
TRAINABLE: tuple[str, ...] = ("pointwise", "hinge", "exponential", "ranknet", "lambdarank", "structured")


def validation_score(data: LetorData, scores: npt.ArrayLike, measure: str = "nDCG@10") -> float:
    """Mean of ``measure`` over the queries of ``data`` ranked by ``scores``, by :func:`rankframe.evaluate`.

    trec_eval semantics: every query of ``data`` counts, those without a relevant document as 0.

    Examples
    --------
    >>> import numpy as np
    >>> d = LetorData(np.zeros((2, 1)), np.array([0.0, 1.0]), np.array(["q", "q"]),
    ...               np.array(["a", "b"]), np.array([0, 2]))
    >>> validation_score(d, [0.0, 1.0]), round(validation_score(d, [1.0, 0.0]), 4)
    (1.0, 0.6309)
    """
    qrels, run = to_frames(data, scores)
    return float(evaluate(qrels, run, [measure])["value"][0])


@dataclass
class FitHistory:
    """What happened while fitting, one entry per epoch.

    Attributes
    ----------
    train_loss : list of float
        Mean loss per query over the epoch (before the L2 term), from the mini-batches.
    validation : list of float
        Validation measure after each epoch (empty without validation data).
    best_epoch : int
        1-based epoch whose weights were kept (the last one without validation data).
    stopped_early : bool
        Whether training stopped because the validation measure stopped improving.
    """

    train_loss: list[float] = field(default_factory=list)
    validation: list[float] = field(default_factory=list)
    best_epoch: int = 0
    stopped_early: bool = False


class LinearRanker:
    r"""Linear scoring function :math:`h_w(x) = \langle w, z(x) \rangle + b`.

    :math:`z` standardises every feature with the mean and standard deviation of the training
    rows (``standardize=True``; constant features are left centred), so that one learning rate
    suits all features. The bias :math:`b` does not change any ranking; it lets the pointwise
    (regression) loss fit the level of the labels.

    Training (:meth:`fit`) minimises

    .. math:: \frac{1}{|B|}\sum_{q \in B} \ell(h_w(X_q), y_q) + \frac{\lambda}{2}\|w\|^2

    over mini-batches :math:`B` of queries, shuffled every epoch, with Adam (Kingma & Ba, 2015;
    :math:`\beta_1 = 0.9, \beta_2 = 0.999`). Adam is used instead of plain SGD because the
    losses differ in scale by orders of magnitude (a pairwise loss sums over
    :math:`O(n_q^2)` pairs, the exponential loss can be huge): Adam's per-coordinate step is
    invariant to the scale of the gradient, so one grid of learning rates serves every loss.
    The gradient with respect to :math:`w` is :math:`Z_B^\top g_B`, where :math:`g_B` is the
    gradient of the summed group losses with respect to the scores (:func:`loss_and_grad`).

    Parameters
    ----------
    standardize
        Standardise the features with the training statistics.

    Attributes
    ----------
    coef_ : ndarray, shape (d,)
        Weights on the standardised features (after :meth:`fit`).
    intercept_ : float
        The bias :math:`b`.
    history_ : FitHistory
        Training trace of the last :meth:`fit`.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.0, 1.0], [1.0, 0.0], [0.5, 0.5]])
    >>> model = LinearRanker(standardize=False).set_weights([2.0, -1.0])
    >>> model.predict(X).tolist()
    [-1.0, 2.0, 0.5]
    """

    def __init__(self, *, standardize: bool = True) -> None:
        self.standardize = standardize
        self.mean_: FloatArray | None = None
        self.scale_: FloatArray | None = None
        self.coef_: FloatArray | None = None
        self.intercept_: float = 0.0
        self.history_ = FitHistory()

    def __repr__(self) -> str:
        state = "unfitted" if self.coef_ is None else f"d={len(self.coef_)}"
        return f"LinearRanker(standardize={self.standardize}, {state})"

    def set_weights(self, coef: npt.ArrayLike, intercept: float = 0.0) -> LinearRanker:
        """Set the weights by hand (no standardisation statistics); returns ``self``."""
        self.coef_ = np.asarray(coef, dtype=np.float64).copy()
        self.intercept_ = float(intercept)
        self.mean_ = self.scale_ = None
        return self

    def _transform(self, X: npt.ArrayLike) -> FloatArray:
        Z = np.asarray(X, dtype=np.float64)
        if self.mean_ is not None and self.scale_ is not None:
            Z = (Z - self.mean_) / self.scale_
        return Z

    def predict(self, X: npt.ArrayLike | LetorData) -> FloatArray:
        """Scores of the rows of ``X`` (an array of shape (n, d) or :class:`LetorData`)."""
        if self.coef_ is None:
            msg = "This LinearRanker is not fitted yet: call fit(...) or set_weights(...) first."
            raise ValueError(msg)
        X = X.X if isinstance(X, LetorData) else X
        Z = self._transform(X)
        if Z.ndim != 2 or Z.shape[1] != len(self.coef_):
            msg = f"predict: expected an array of shape (n, {len(self.coef_)}), got {Z.shape}."
            raise ValueError(msg)
        return Z @ self.coef_ + self.intercept_

    def fit(
        self,
        data: LetorData,
        loss: str = "ranknet",
        *,
        epochs: int = 30,
        batch_queries: int = 8,
        lr: float = 0.01,
        l2: float = 0.0,
        seed: int = 0,
        k: int | None = None,
        validation: LetorData | None = None,
        measure: str = "nDCG@10",
        patience: int = 8,
        scorer: Callable[[LetorData, FloatArray], float] | None = None,
    ) -> LinearRanker:
        """Fit the weights by mini-batch Adam over query groups.

        Parameters
        ----------
        data
            Training queries.
        loss
            One of :data:`TRAINABLE` (see :func:`rankframe.ltr.loss_and_grad`).
        epochs
            Passes over the training queries.
        batch_queries
            Queries per mini-batch.
        lr
            Adam step size.
        l2
            Weight of the L2 penalty on ``coef_`` (lambda above), not on the bias.
        seed
            Seeds the initial weights (small Gaussian, to break the all-tied start) and the
            order of the queries; the same seed gives the same model.
        k
            Cutoff passed to the loss (LambdaRank and the NDCG surrogates); ``None`` = whole list.
        validation
            Queries for early stopping: after every epoch the validation ``measure`` is
            computed, the best weights are kept, and training stops after ``patience`` epochs
            without improvement.
        measure
            Validation measure (any rankframe measure name), higher is better.
        patience
            Epochs without improvement before stopping (with ``validation``).
        scorer
            ``scorer(validation, scores) -> float`` replacing the default
            :func:`validation_score` with ``measure``.

        Returns
        -------
        LinearRanker
            ``self``.

        Raises
        ------
        ValueError
            For an untrainable or unknown loss or a bad setting.
        """
        if loss not in TRAINABLE:
            hint = " It is piecewise constant (zero gradient): use it to evaluate." if loss in (
                "kendall", "ndcg") else ""
            msg = f"Cannot train with loss {loss!r}.{hint} Trainable losses: {', '.join(TRAINABLE)}."
            raise ValueError(msg)
        if epochs < 1 or batch_queries < 1 or lr <= 0 or l2 < 0 or patience < 1:
            msg = (
                "fit: need epochs >= 1, batch_queries >= 1, lr > 0, l2 >= 0, patience >= 1; got "
                f"epochs={epochs}, batch_queries={batch_queries}, lr={lr}, l2={l2}, patience={patience}."
            )
            raise ValueError(msg)
        if validation is not None and scorer is None:
            parse_measure(measure)  # fail before training on a bad name

            def scorer(v: LetorData, s: FloatArray) -> float:
                return validation_score(v, s, measure)

        rng = np.random.default_rng(seed)
        X = np.asarray(data.X, dtype=np.float64)
        d = X.shape[1]
        if self.standardize:
            self.mean_ = X.mean(axis=0)
            sd = X.std(axis=0)
            self.scale_ = np.where(sd > 1e-12, sd, 1.0)
        else:
            self.mean_ = self.scale_ = None
        Z = self._transform(X)
        y = np.asarray(data.labels, dtype=np.float64)

        # parameters: theta = [w..., b]; Adam state
        theta = np.concatenate([rng.normal(0.0, 0.01, d), [0.0]])
        m, v = np.zeros(d + 1), np.zeros(d + 1)
        beta1, beta2, eps, t = 0.9, 0.999, 1e-8, 0
        hist = FitHistory()
        best_theta, best_val, bad_epochs = theta.copy(), -math.inf, 0

        n_q = data.n_queries
        for epoch in range(1, epochs + 1):
            order = rng.permutation(n_q)
            total, count = 0.0, 0
            for start in range(0, n_q, batch_queries):
                groups = order[start:start + batch_queries]
                idx = data.rows(groups)
                sizes = data.sizes[groups]
                off = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
                Zb = Z[idx]
                scores = Zb @ theta[:d] + theta[d]
                losses, g_scores = loss_and_grad(loss, scores, y[idx], off, k=k)
                nb = len(groups)
                total += float(np.sum(losses))
                count += nb
                grad = np.empty(d + 1)
                grad[:d] = Zb.T @ g_scores / nb + l2 * theta[:d]
                grad[d] = float(np.sum(g_scores)) / nb
                if not np.all(np.isfinite(grad)):
                    msg = (
                        f"fit: the {loss} gradient overflowed at epoch {epoch} (lr={lr}); "
                        "try a smaller learning rate."
                    )
                    raise FloatingPointError(msg)
                t += 1
                m = beta1 * m + (1 - beta1) * grad
                v = beta2 * v + (1 - beta2) * grad * grad
                m_hat = m / (1 - beta1**t)
                v_hat = v / (1 - beta2**t)
                theta = theta - lr * m_hat / (np.sqrt(v_hat) + eps)
            hist.train_loss.append(total / max(count, 1))
            if validation is None or scorer is None:
                best_theta, hist.best_epoch = theta.copy(), epoch
                continue
            self.coef_, self.intercept_ = theta[:d].copy(), float(theta[d])
            score = float(scorer(validation, self.predict(validation.X)))
            hist.validation.append(score)
            if score > best_val + 1e-12:
                best_val, best_theta, hist.best_epoch, bad_epochs = score, theta.copy(), epoch, 0
            else:
                bad_epochs += 1
                if bad_epochs >= patience:
                    hist.stopped_early = epoch < epochs
                    break
        self.coef_, self.intercept_ = best_theta[:d].copy(), float(best_theta[d])
        self.history_ = hist
        return self
