"""Trained menu policies as first-class policies: ``acworld eval SUITE --policy sb3:PATH``.

A policy trained over the discrete action menu (:class:`acworld_env.wrappers.menu.GymActionMenu`)
with sb3-contrib's ``MaskablePPO`` (``MultiInputPolicy``, the default MLP) is saved as SB3's
``.zip`` plus a **sidecar** ``PATH.json`` beside it (``model.zip.json``) (:func:`write_sidecar`) that records what the
policy was trained to read: the menu's signature (its slots and features), the ``hints`` mode, the
featuriser, the network's layer sizes and activation, and the SHA-256 of the ``.zip``.

**A policy file is untrusted input.** SB3's own ``load`` unpickles, which runs whatever code the
file carries. Here nothing is unpickled: the weights are read from the archive's ``policy.pth``
with ``torch.load(..., weights_only=True)`` (tensors and plain containers only; anything else is
refused), or from a ``.npz`` archive with ``allow_pickle=False``; the architecture comes from the
sidecar and every weight's shape is checked against it. The forward pass is plain numpy: the
actor's MLP on the flattened observation (``action_mask`` then ``observation``, as SB3's combined
extractor orders a ``Dict`` space), masked logits, the greedy slot.

The policy keeps its own :class:`~acworld_env.envs.known.Known` from the observations it is given
and the actions it takes, exactly as the env's menu does, so it plays the same through the env,
the evaluation runner or a remote server.

A sidecar with ``"architecture": "slot-scorer/1"`` names a slot-scoring network instead
(:mod:`acworld_env.wrappers.slot_scorer`, ``.npz`` weights only): it also reads the menu's slot
features, and its sidecar's ``slots`` digest must match this version's slot features and templates.
"""

from __future__ import annotations

import hashlib
import io
import json
import zipfile
from pathlib import Path
from typing import Any

import numpy as np

from ..core.errors import AcworldError

SIDECAR_FORMAT = "acworld-menu-policy/1"
ACTIVATIONS = {"tanh": np.tanh, "relu": lambda x: np.maximum(x, 0.0)}
MAX_FILE_BYTES = 64 * 1024 * 1024
"""A policy archive larger than this is refused before it is read."""


class PolicyFileError(AcworldError, ValueError):
    """A trained-policy file that cannot be used: missing, unsafe, or made for another menu."""


def menu_signature() -> str:
    """A short digest of the menu a policy plays: its slot labels and its feature count."""
    from ..wrappers.menu import LABELS, N_ACTIONS, N_FEATURES

    text = "\n".join(LABELS) + f"\n{N_ACTIONS}|{N_FEATURES}"
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def sidecar_path(path: Path) -> Path:
    """``model.zip`` -> ``model.zip.json`` (the sidecar beside the weights, one per weights file)."""
    return path.with_name(path.name + ".json")


def write_sidecar(path: str | Path, *, hints: str = "off", net_arch: list[int] | None = None,
                  activation: str = "tanh", algorithm: str = "MaskablePPO", featuriser: str | None = None,
                  extra: dict | None = None) -> Path:
    """Write the sidecar of the saved model ``path`` (a ``.zip`` or ``.npz``); return its path.

    ``featuriser`` names what the policy reads besides the base features
    (:mod:`acworld_env.wrappers.featurise`); the policy plays with the same one.
    """
    from ..wrappers.featurise import check_featuriser
    from ..wrappers.menu import N_ACTIONS, n_features

    path = Path(path)
    data = {"format": SIDECAR_FORMAT, "algorithm": algorithm, "menu": menu_signature(), "hints": hints,
            "featuriser": check_featuriser(featuriser), "net_arch": list(net_arch or [64, 64]),
            "activation": activation, "n_features": n_features(featuriser), "n_actions": N_ACTIONS,
            "sha256": hashlib.sha256(path.read_bytes()).hexdigest(), **(extra or {})}
    out = sidecar_path(path)
    out.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
    return out


def _read_sidecar(path: Path) -> dict[str, Any]:
    side = sidecar_path(path)
    if not side.is_file():
        raise PolicyFileError(f"{path}: no sidecar {side.name} beside it (it records the menu, hints and "
                              "network the weights were trained for; write_sidecar() makes it)")
    try:
        meta = json.loads(side.read_text())
    except (OSError, ValueError) as exc:
        raise PolicyFileError(f"{side}: not a readable sidecar ({exc})") from None
    if not isinstance(meta, dict) or meta.get("format") != SIDECAR_FORMAT:
        raise PolicyFileError(f"{side}: not a {SIDECAR_FORMAT} sidecar")
    if meta.get("menu") != menu_signature():
        raise PolicyFileError(f"{path}: trained for another action menu ({meta.get('menu')}, this one is "
                              f"{menu_signature()}); retrain it on this version")
    from ..wrappers.featurise import FEATURISERS, known_featurisers
    from ..wrappers.menu import N_ACTIONS, n_features

    if meta.get("featuriser") not in FEATURISERS:
        raise PolicyFileError(f"{path}: featuriser {meta.get('featuriser')!r} is not known to this version "
                              f"(known: {known_featurisers()})")
    if meta.get("n_features") != n_features(meta["featuriser"]) or meta.get("n_actions") != N_ACTIONS:
        raise PolicyFileError(f"{side}: n_features/n_actions {meta.get('n_features')}/{meta.get('n_actions')} do "
                              f"not match this menu with featuriser {meta['featuriser']!r} "
                              f"({n_features(meta['featuriser'])}/{N_ACTIONS})")
    if meta.get("hints") not in ("off", "structured") or meta.get("activation") not in ACTIVATIONS:
        raise PolicyFileError(f"{side}: hints must be off or structured and activation one of {sorted(ACTIVATIONS)}")
    arch = meta.get("net_arch")
    if not isinstance(arch, list) or not all(isinstance(n, int) and 0 < n <= 4096 for n in arch):
        raise PolicyFileError(f"{side}: net_arch must be a list of layer sizes")
    if meta.get("architecture", "mlp") not in ("mlp", "slot-scorer/1"):
        raise PolicyFileError(f"{side}: architecture {meta.get('architecture')!r} is not known to this version "
                              "(known: 'mlp', 'slot-scorer/1')")
    if meta.get("architecture") == "slot-scorer/1":
        from ..wrappers.slot_scorer import slot_signature, slot_width

        if slot_width(meta.get("slots")) is None:
            raise PolicyFileError(f"{path}: trained for other slot features ({meta.get('slots')}, this version's "
                                  f"are {slot_signature()}); retrain it on this version")
        if len(arch) != 1 or path.suffix != ".npz":
            raise PolicyFileError(f"{side}: a slot scorer has one hidden size in net_arch and .npz weights")
    return meta


def _tensors_from_zip(path: Path, data: bytes) -> dict[str, np.ndarray]:
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            info = archive.getinfo("policy.pth")
            if info.file_size > MAX_FILE_BYTES:
                raise PolicyFileError(f"{path}: policy.pth is {info.file_size} bytes; the limit is {MAX_FILE_BYTES}")
            blob = archive.read("policy.pth")
    except (zipfile.BadZipFile, KeyError, OSError) as exc:
        raise PolicyFileError(f"{path}: not an SB3 model archive with policy.pth ({exc})") from None
    try:
        import torch
    except ImportError:
        raise PolicyFileError(f"{path}: reading SB3 weights needs torch (or export them to .npz)") from None
    try:
        state = torch.load(io.BytesIO(blob), map_location="cpu", weights_only=True)
    except Exception as exc:  # noqa: BLE001  (any refusal of the safe loader: the file holds more than weights)
        raise PolicyFileError(f"{path}: policy.pth holds more than tensors; refused without running it "
                              f"({type(exc).__name__})") from None
    if not isinstance(state, dict):
        raise PolicyFileError(f"{path}: policy.pth is not a table of tensors")
    return {str(k): v.detach().cpu().numpy() for k, v in state.items() if hasattr(v, "detach")}


def _tensors_from_npz(path: Path, data: bytes) -> dict[str, np.ndarray]:
    try:
        with np.load(io.BytesIO(data), allow_pickle=False) as arrays:
            return {k: np.asarray(arrays[k]) for k in arrays.files}
    except (ValueError, OSError, zipfile.BadZipFile) as exc:
        raise PolicyFileError(f"{path}: not a plain numpy weights archive ({exc})") from None


def export_npz(state: dict[str, Any], path: str | Path) -> Path:
    """Save a policy's actor weights (``mlp_extractor.policy_net.*`` and ``action_net.*``) as ``.npz``."""
    keep = {k: np.asarray(v.detach().cpu().numpy() if hasattr(v, "detach") else v, dtype=np.float32)
            for k, v in state.items() if k.startswith(("mlp_extractor.policy_net.", "action_net."))}
    path = Path(path)
    np.savez(path, **keep)
    return path


class TrainedMenuPolicy:
    """A greedy menu policy from saved weights (see the module docstring)."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        if not self.path.is_file():
            raise PolicyFileError(f"no policy file {self.path}")
        if self.path.stat().st_size > MAX_FILE_BYTES:
            raise PolicyFileError(f"{self.path}: larger than {MAX_FILE_BYTES} bytes")
        self.meta = _read_sidecar(self.path)
        data = self.path.read_bytes()  # read once: the bytes checked are the bytes loaded
        if hashlib.sha256(data).hexdigest() != self.meta.get("sha256"):
            raise PolicyFileError(f"{self.path}: does not match the SHA-256 its sidecar records")
        load = _tensors_from_npz if self.path.suffix == ".npz" else _tensors_from_zip
        raw = load(self.path, data)
        self.hints: str = self.meta["hints"]
        """The hints mode the policy was trained with (the evaluation runner plays it with the same)."""
        self.scorer = self.meta.get("architecture") == "slot-scorer/1"
        self.layers = [] if self.scorer else self._layers(raw)
        self.weights = self._scorer_weights(raw) if self.scorer else {}
        self.activation = ACTIVATIONS[self.meta["activation"]]
        from ..wrappers.featurise import Featuriser

        self.featuriser = Featuriser(self.meta["featuriser"])
        """What the policy reads besides the base features (the one its sidecar names)."""
        self.known: Any = None

    def _layers(self, raw: dict[str, np.ndarray]) -> list[tuple[np.ndarray, np.ndarray]]:
        sizes = [self.meta["n_actions"] + self.meta["n_features"], *self.meta["net_arch"]]
        names = [f"mlp_extractor.policy_net.{2 * i}" for i in range(len(self.meta["net_arch"]))] + ["action_net"]
        outs = [*self.meta["net_arch"], self.meta["n_actions"]]
        layers = []
        for name, n_in, n_out in zip(names, sizes, outs, strict=True):
            w, b = raw.get(f"{name}.weight"), raw.get(f"{name}.bias")
            if w is None or b is None or w.shape != (n_out, n_in) or b.shape != (n_out,):
                got = None if w is None else w.shape
                raise PolicyFileError(f"{self.path}: {name} should be {n_out}x{n_in}, found {got}")
            if not (np.isfinite(w).all() and np.isfinite(b).all()):
                raise PolicyFileError(f"{self.path}: {name} holds non-finite weights")
            layers.append((w.astype(np.float32), b.astype(np.float32)))
        return layers

        self.slotter: Any = None

    def _scorer_weights(self, raw: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        from ..wrappers.slot_scorer import scorer_shapes, slot_width

        out = {}
        shapes = scorer_shapes(self.meta["n_features"], self.meta["net_arch"][0], slot_width(self.meta["slots"]) or 0)
        for name, shape in shapes.items():
            w = raw.get(name)
            if w is None or w.shape != shape:
                raise PolicyFileError(f"{self.path}: {name} should be {shape}, found {None if w is None else w.shape}")
            if not np.isfinite(w).all():
                raise PolicyFileError(f"{self.path}: {name} holds non-finite weights")
            out[name] = w.astype(np.float32)
        return out

    def reset(self, seed: int | None = None) -> None:
        """Forget the episode (a fresh memory of what the agent has seen)."""
        from ..wrappers.featurise import Featuriser

        self.known = None
        self.featuriser = Featuriser(self.meta["featuriser"])  # a new one: copies of a policy play at once
        self.slotter = None

    def vector(self, observation: dict[str, Any]) -> np.ndarray:
        """The policy's input features for ``observation`` (already fed to :attr:`known`)."""
        from ..wrappers.menu import features

        base = features(observation, self.known)
        if self.featuriser.name is None:
            return base
        return np.concatenate([base, self.featuriser(observation, self.known)])

    def logits(self, features: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """The actor's masked logits for one menu observation."""
        x = np.concatenate([mask.astype(np.float32), features.astype(np.float32)])
        for w, b in self.layers[:-1]:
            x = self.activation(w @ x + b)
        w, b = self.layers[-1]
        out = w @ x + b
        return np.where(mask.astype(bool), out, -np.inf)

    def act(self, observation: dict[str, Any]) -> dict[str, Any]:
        """The greedy menu slot's action for one raw observation (idle when no slot is open)."""
        from ..envs.candidates import menu_actions
        from ..envs.known import Known
        from ..vcp.union import IDLE_ACTION

        if self.known is None:
            self.known = Known(actor=observation.get("actor", ""), role=observation.get("role", "buyer"))
        self.known.feed(observation)
        actions = menu_actions(self.known)
        mask = np.array([a is not None for a in actions], dtype=np.int8)
        if not mask.any():
            return dict(IDLE_ACTION)
        if self.scorer:
            chosen = actions[self._scored(observation, actions, mask)]
        else:
            chosen = actions[int(np.argmax(self.logits(self.vector(observation), mask)))]
        assert chosen is not None
        self.known.feed(action=chosen)
        return chosen


    def _scored(self, observation: dict[str, Any], actions: list[Any], mask: np.ndarray) -> int:
        """The slot-scorer's greedy slot (ties: the lowest index)."""
        from ..wrappers.slot_features import SlotFeaturiser
        from ..wrappers.slot_scorer import scorer_logits

        if self.slotter is None:
            self.slotter = SlotFeaturiser()
        x = self.vector(observation)
        rows = self.slotter(observation, self.known, actions)
        slots = np.flatnonzero(mask)
        return int(slots[int(np.argmax(scorer_logits(self.weights, x, rows[slots], slots)))])


def policy_from_path(spec: str) -> TrainedMenuPolicy:
    """``sb3:PATH`` -> the policy (``PATH`` a ``.zip`` or ``.npz`` with its sidecar)."""
    return TrainedMenuPolicy(spec.split(":", 1)[1])
