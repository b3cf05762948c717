"""
Step 2 of `npm run train:firewall`: fine-tunes all-MiniLM-L6-v2 into Sieve's firewall encoder.

    /usr/bin/python3 scripts/train/firewall_encoder.py TOKENS.jsonl SOURCE_MODEL_DIR OUT_DIR
        [--steps N] [--batch ROWS] [--seed S] [--hold-out GROUP | --validate GROUP] [--layers N] [--pair-batch N]

--hold-out GROUP leaves a source out and only measures it (leave-one-source-out; no model written);
--validate GROUP leaves it out as a validation set measured during training and writes the best
checkpoint (early stopping); --layers N trains a cut of the first N layers (cheaper to run);
--pair-batch N adds N matched pairs to every step with a ranking term (the attack above its benign
twin). With matched pairs in the data (prepare --matched-pairs), every PAIR_HOLD_OUT-th pair is held
out of training and measured before and after it, pair term or not.

TOKENS.jsonl comes from prepare-firewall-data.ts (windows already tokenised by the model's own
tokenizer). Training-only dependencies: Debian's python3-torch (and libopenblas0-pthread for
speed); install, start and the test suite never need them.

The encoder is the BERT forward of scripts/model/bert-graph.ts written in PyTorch (mean pooling,
L2 normalisation, as the server embeds). Objective, per row (its windows share one label; a row
is as attack-like as its most attack-like window, as the server decides):
  - pattern term: the row's best cosine with the built-in input patterns (embedded by the encoder
    itself, refreshed every BANK_REFRESH steps) should exceed MARGIN for attacks and stay below
    it for benign text, so pattern similarity keeps working in the new space;
  - head term: a logistic layer on the window vector (the calibration refits its own later);
  - keep term: benign windows stay near where the general model put them (cosine with the frozen
    original), so custom patterns on ordinary topics still mean what they say.
Rows are sampled so that every source group weighs the same within its label and attacks weigh
as much as benign rows. The embeddings and the lower layers (--freeze-below) are frozen: the
vocabulary's rare tokens would only drift, and the backward pass halves on this CPU. Fixed seed; one thread pool of 2 (the machine has 2 cores).

Writes OUT_DIR/model.fp16.safetensors (the tensor names the converter reads), config.json,
tokenizer.json and OUT_DIR/training.json (data counts, settings, loss curve, the head's weights;
with --hold-out, the held-out group's ROC AUC instead of weights).
"""
import argparse
import json
import math
import os
import random
import shutil
import struct
import time

import numpy as np
import torch
import torch.nn.functional as F

BANK_GROUP = "built-in patterns"
BANK_REFRESH = 30
MARGIN = 0.5
SIM_SCALE = 20.0
KEEP_WEIGHT = 2.0
HEAD_WEIGHT = 1.0
# Pair term (--pair-batch): a matched pair's attack row should beat its benign twin by this much
# cosine with the patterns (and by any margin on the head). Every PAIR_HOLD_OUT-th pair is never
# trained on and measures it.
PAIR_GAP = 0.1
PAIR_HOLD_OUT = 5


def read_safetensors(path):
    with open(path, "rb") as f:
        n = struct.unpack("<Q", f.read(8))[0]
        header = json.loads(f.read(n))
        data = f.read()
    tensors = {}
    for name, entry in header.items():
        if name == "__metadata__":
            continue
        begin, end = entry["data_offsets"]
        dtype = {"F16": np.float16, "F32": np.float32, "I64": np.int64}[entry["dtype"]]
        array = np.frombuffer(data[begin:end], dtype=dtype).reshape(entry["shape"])
        tensors[name] = torch.from_numpy(array.astype(np.float32) if dtype != np.int64 else array.copy())
    return tensors


def write_safetensors(path, tensors):
    header, chunks, offset = {"__metadata__": {"format": "pt"}}, [], 0
    for name, tensor in tensors.items():
        raw = tensor.detach().to(torch.float16).contiguous().numpy().tobytes()
        header[name] = {"dtype": "F16", "shape": list(tensor.shape), "data_offsets": [offset, offset + len(raw)]}
        chunks.append(raw)
        offset += len(raw)
    encoded = json.dumps(header).encode()
    encoded += b" " * ((8 - len(encoded) % 8) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(encoded)))
        f.write(encoded)
        for chunk in chunks:
            f.write(chunk)


class Bert(torch.nn.Module):
    """Hugging Face BertModel without the pooler; parameter names are the checkpoint's."""

    def __init__(self, weights, config):
        super().__init__()
        self.heads = config["num_attention_heads"]
        self.eps = config["layer_norm_eps"]
        self.layers = config["num_hidden_layers"]
        self.params = torch.nn.ParameterDict({name.replace(".", "__"): torch.nn.Parameter(t.clone()) for name, t in weights.items() if t.dtype == torch.float32})

    def w(self, name):
        return self.params[name.replace(".", "__")]

    def linear(self, x, prefix):
        return F.linear(x, self.w(prefix + ".weight"), self.w(prefix + ".bias"))

    def norm(self, x, prefix):
        return F.layer_norm(x, x.shape[-1:], self.w(prefix + ".weight"), self.w(prefix + ".bias"), self.eps)

    def forward(self, ids, mask):
        return self.upper(self.lower(ids, mask, self.layers), mask, self.layers)

    def lower(self, ids, mask, upto):
        """Embeddings and layers [0, upto)."""
        length = ids.shape[1]
        h = F.embedding(ids, self.w("embeddings.word_embeddings.weight"))
        h = h + self.w("embeddings.position_embeddings.weight")[:length] + self.w("embeddings.token_type_embeddings.weight")[0]
        h = self.norm(h, "embeddings.LayerNorm")
        return self.layers_range(h, mask, 0, upto)

    def upper(self, h, mask, start):
        """Layers [start, end) and mean pooling + L2 normalisation (sentence-transformers)."""
        h = self.layers_range(h, mask, start, self.layers)
        m = mask.unsqueeze(-1).float()
        pooled = (h * m).sum(1) / m.sum(1).clamp(min=1e-9)
        return F.normalize(pooled, dim=-1)

    def layers_range(self, h, mask, start, end):
        batch, length, hidden = h.shape
        bias = (1.0 - mask[:, None, None, :].float()) * -10000.0
        size = hidden // self.heads
        split = lambda x: x.view(batch, length, self.heads, size).transpose(1, 2)
        for layer in range(start, end):
            p = f"encoder.layer.{layer}"
            q, k, v = (split(self.linear(h, f"{p}.attention.self.{n}")) for n in ("query", "key", "value"))
            probs = torch.softmax(q @ k.transpose(-1, -2) / math.sqrt(size) + bias, dim=-1)
            context = (probs @ v).transpose(1, 2).reshape(batch, length, hidden)
            h = self.norm(self.linear(context, f"{p}.attention.output.dense") + h, f"{p}.attention.output.LayerNorm")
            inner = F.gelu(self.linear(h, f"{p}.intermediate.dense"))
            h = self.norm(self.linear(inner, f"{p}.output.dense") + h, f"{p}.output.LayerNorm")
        return h


def pad(sequences):
    length = max(len(s) for s in sequences)
    ids = torch.zeros(len(sequences), length, dtype=torch.long)
    mask = torch.zeros(len(sequences), length, dtype=torch.long)
    for i, s in enumerate(sequences):
        ids[i, : len(s)] = torch.tensor(s)
        mask[i, : len(s)] = 1
    return ids, mask


def embed(model, sequences, chunk=64):
    out = []
    for i in range(0, len(sequences), chunk):
        ids, mask = pad(sequences[i : i + chunk])
        out.append(model(ids, mask))
    return torch.cat(out)


def sampling_weights(rows):
    """Every source group weighs the same within its label; both labels weigh the same."""
    groups = {}
    for r in rows:
        groups.setdefault((r["attack"], r["group"]), []).append(r)
    per_label = {label: sum(1 for (l, _) in groups if l == label) for label in (0, 1)}
    return [1.0 / (per_label[r["attack"]] * len(groups[(r["attack"], r["group"])])) for r in rows]


def roc_auc(scores, labels):
    order = np.argsort(scores)
    ranks = np.empty(len(scores))
    ranks[order] = np.arange(1, len(scores) + 1)
    labels = np.asarray(labels)
    pos = labels.sum()
    neg = len(labels) - pos
    if pos == 0 or neg == 0:
        return float("nan")
    return float((ranks[labels == 1].sum() - pos * (pos + 1) / 2) / (pos * neg))


def held_out_auc(model, head, bank_sequences, rows):
    """ROC AUC of a row's best pattern cosine (and best head logit) over its windows: held-out attacks and benign rows."""
    model.eval()
    with torch.no_grad():
        bank = embed(model, bank_sequences)
        # Every window of every row in batches of similar length (one row at a time is ~10x slower here).
        windows = sorted(((len(w), i, w) for i, r in enumerate(rows) for w in r["windows"]), key=lambda x: x[0])
        vectors = embed(model, [w for _, _, w in windows])
        owner = torch.tensor([i for _, i, _ in windows])
        window_sims = (vectors @ bank.T).max(dim=1).values
        window_heads = head(vectors).squeeze(-1) if head is not None else torch.zeros(len(windows))
        sims = torch.full((len(rows),), -2.0).scatter_reduce(0, owner, window_sims, reduce="amax").tolist()
        heads = torch.full((len(rows),), -1e4).scatter_reduce(0, owner, window_heads, reduce="amax").tolist()
        labels = [r["attack"] for r in rows]
    model.train()
    result = {"auc_pattern_similarity": roc_auc(np.array(sims), labels)}
    if head is not None:
        result["auc_head"] = roc_auc(np.array(heads), labels)
    return result


def held_pair_ranking(model, head, bank_sequences, pairs):
    """Held-out matched pairs: the share whose attack row scores above its benign twin, and the ROC AUC over all their rows."""
    rows = [r for p in pairs for r in p]
    with torch.no_grad():
        bank = embed(model, bank_sequences)
        best = lambda r: (embed(model, r["windows"]) @ bank.T).max().item()
        heads = lambda r: head(embed(model, r["windows"])).max().item()
        sims = [best(r) for r in rows]
        logits = [heads(r) if head is not None else 0.0 for r in rows]
    labels = [r["attack"] for r in rows]
    wins = lambda xs: sum(xs[2 * i] > xs[2 * i + 1] for i in range(len(pairs))) / len(pairs)
    result = {"pairs": len(pairs), "attack_above_twin_pattern": round(wins(sims), 4), "auc_pattern_similarity": round(roc_auc(np.array(sims), labels), 4)}
    if head is not None:  # before training there is no head to measure
        result.update({"attack_above_twin_head": round(wins(logits), 4), "auc_head": round(roc_auc(np.array(logits), labels), 4)})
    return result


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("tokens")
    parser.add_argument("source")
    parser.add_argument("out")
    parser.add_argument("--steps", type=int, default=160)
    parser.add_argument("--batch", type=int, default=24)
    parser.add_argument("--lr", type=float, default=8e-5)
    parser.add_argument("--seed", type=int, default=14)
    parser.add_argument("--hold-out", default=None, help="source groups to leave out and measure (LOSO), comma-separated (one source may span groups)")
    parser.add_argument("--freeze-below", type=int, default=4, help="embeddings and layers below this one stay frozen")
    parser.add_argument("--max-minutes", type=float, default=44.0)
    parser.add_argument("--layers", type=int, default=None, help="keep only the first N layers of the source model (a cheaper cut of it)")
    parser.add_argument("--validate", default=None, help="source groups kept out of training as validation (with every 5th benign row): measured every --validate-every steps, the best checkpoint is the one written")
    parser.add_argument("--validate-every", type=int, default=50)
    parser.add_argument("--pair-batch", type=int, default=0, help="matched pairs (prepare --matched-pairs) added to every step with a ranking term: the attack above its benign twin")
    args = parser.parse_args()
    if args.hold_out and args.validate:
        raise SystemExit("--hold-out measures a left-out source and writes no model; --validate stops early and writes one: use one of them")

    torch.set_num_threads(2)
    torch.manual_seed(args.seed)
    random.seed(args.seed)
    np.random.seed(args.seed)

    rows = [json.loads(line) for line in open(args.tokens) if line.strip()]
    bank_rows = [r for r in rows if r["group"] == BANK_GROUP]
    kept_out = args.hold_out or args.validate
    held_groups = set(kept_out.split(",")) if kept_out else set()
    held = [r for r in rows if r["group"] in held_groups]
    train = [r for r in rows if r["group"] not in held_groups]
    if kept_out:
        # Benign rows scored with the held-out group (besides its own benign rows): every 5th benign row, never trained on.
        benign_probe = [r for i, r in enumerate(train) if not r["attack"] and r["group"] != BANK_GROUP and i % 5 == 0]
        train = [r for i, r in enumerate(train) if r["attack"] or i % 5 != 0 or r["group"] == BANK_GROUP]
        if not held:
            raise SystemExit(f"no rows in group {kept_out!r}")
    # Matched pairs: both rows present (a row the encoder cannot read has no windows); every
    # PAIR_HOLD_OUT-th pair is kept out of training and measured at the end.
    pair_rows = {}
    for r in train:
        if "pair" in r:
            pair_rows.setdefault(r["pair"], {})[r["attack"]] = r
    pairs = [(p[1], p[0]) for _, p in sorted(pair_rows.items()) if 0 in p and 1 in p]
    held_pairs = [p for i, p in enumerate(pairs) if i % PAIR_HOLD_OUT == 0]
    train_pairs = [p for i, p in enumerate(pairs) if i % PAIR_HOLD_OUT != 0]
    held_pair_ids = {id(r) for p in held_pairs for r in p}
    train = [r for r in train if id(r) not in held_pair_ids]
    weights = sampling_weights(train)

    config = json.load(open(os.path.join(args.source, "config.json")))
    original = read_safetensors(os.path.join(args.source, "model.fp16.safetensors"))
    if args.layers:
        config["num_hidden_layers"] = args.layers
        original = {n: t for n, t in original.items() if not n.startswith("encoder.layer.") or int(n.split(".")[2]) < args.layers}
    model = Bert(original, config)
    teacher = Bert(original, config).eval()
    for p in teacher.parameters():
        p.requires_grad_(False)
    # Embeddings and the lower layers stay as they are: half the backward pass, and the frozen
    # teacher shares their output (only its upper layers run).
    for name in original:
        layer = name.split(".")[2] if name.startswith("encoder.layer.") else None
        if name.startswith("embeddings.") or (layer is not None and int(layer) < args.freeze_below):
            if original[name].dtype == torch.float32:
                model.w(name).requires_grad_(False)
    head = torch.nn.Linear(config["hidden_size"], 1)
    torch.nn.init.zeros_(head.weight)
    trainable = [p for p in model.parameters() if p.requires_grad]
    optimizer = torch.optim.AdamW([{"params": trainable, "lr": args.lr}, {"params": head.parameters(), "lr": 1e-2}], weight_decay=0.01)
    warmup = max(1, args.steps // 20)
    started = time.time()

    def progress(s):
        """Share of the run done: steps or the time budget, whichever runs out first (a shared
        CPU may allow far fewer steps than planned; the learning rate still decays to zero)."""
        return max(s / args.steps, (time.time() - started) / 60 / args.max_minutes)

    schedule = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda s: min(1.0, (s + 1) / warmup) * max(0.0, 1 - progress(s)))

    bank_sequences = [w for r in bank_rows for w in r["windows"]]
    if kept_out:
        # The same measurement with the general model, before any training: what fine-tuning changed on a source it never saw.
        held_out_before = held_out_auc(model, None, bank_sequences, held + benign_probe)
        print(json.dumps({"hold_out_before": held_out_before}), flush=True)
    pairs_before = held_pair_ranking(model, None, bank_sequences, held_pairs) if held_pairs else None
    rng = random.Random(args.seed)
    curve = []
    started = time.time()  # the time budget counts training steps only
    bank = None
    step = 0
    validation, best = [], None
    for step in range(args.steps):
        if args.validate and step > 0 and step % args.validate_every == 0:
            measured = held_out_auc(model, head, bank_sequences, held + benign_probe)
            validation.append({"step": step, **measured})
            print(json.dumps({"validation": validation[-1]}), flush=True)
            if best is None or measured["auc_pattern_similarity"] > best["auc"]:
                best = {"auc": measured["auc_pattern_similarity"], "step": step, "model": {k: v.detach().clone() for k, v in model.state_dict().items()}, "head": {k: v.detach().clone() for k, v in head.state_dict().items()}}
        if step % BANK_REFRESH == 0:
            model.eval()
            with torch.no_grad():
                bank = embed(model, bank_sequences)
            model.train()
        batch = rng.choices(train, weights=weights, k=args.batch)
        step_pairs = rng.sample(train_pairs, min(args.pair_batch, len(train_pairs))) if args.pair_batch else []
        batch = batch + [a for a, _ in step_pairs] + [b for _, b in step_pairs]
        sequences, owner = [], []
        for i, r in enumerate(batch):
            for w in r["windows"]:
                sequences.append(w)
                owner.append(i)
        ids, mask = pad(sequences)
        with torch.no_grad():
            low = model.lower(ids, mask, args.freeze_below)
        vectors = model.upper(low, mask, args.freeze_below)
        owner_t = torch.tensor(owner)
        labels = torch.tensor([float(r["attack"]) for r in batch])
        window_sim = (vectors @ bank.T).max(dim=1).values
        window_head = head(vectors).squeeze(-1)
        row_sim = torch.full((len(batch),), -2.0).scatter_reduce(0, owner_t, window_sim, reduce="amax")
        row_head = torch.full((len(batch),), -1e4).scatter_reduce(0, owner_t, window_head, reduce="amax")
        pattern_loss = F.binary_cross_entropy_with_logits(SIM_SCALE * (row_sim - MARGIN), labels)
        head_loss = F.binary_cross_entropy_with_logits(row_head, labels)
        benign = torch.tensor([not batch[o]["attack"] for o in owner])
        keep_loss = torch.tensor(0.0)
        if benign.any():
            with torch.no_grad():
                target = teacher.upper(low[benign], mask[benign], args.freeze_below)
            keep_loss = (1 - (vectors[benign] * target).sum(-1)).mean()
        pair_loss = torch.tensor(0.0)
        if step_pairs:
            first, n = args.batch, len(step_pairs)
            attack_rows, benign_rows = slice(first, first + n), slice(first + n, first + 2 * n)
            pair_loss = F.softplus(-SIM_SCALE * (row_sim[attack_rows] - row_sim[benign_rows] - PAIR_GAP)).mean() + F.softplus(-(row_head[attack_rows] - row_head[benign_rows])).mean()
        loss = pattern_loss + HEAD_WEIGHT * head_loss + KEEP_WEIGHT * keep_loss + pair_loss
        optimizer.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(trainable, 1.0)
        optimizer.step()
        schedule.step()
        entry = {"step": step, "loss": round(loss.item(), 4), "pattern": round(pattern_loss.item(), 4), "head": round(head_loss.item(), 4), "keep": round(keep_loss.item(), 4), "pair": round(pair_loss.item(), 4), "windows": len(sequences), "seconds": round(time.time() - started, 1)}
        curve.append(entry)
        if step % 10 == 0 or step < 3:
            print(json.dumps(entry), flush=True)
        if step + 1 < args.steps and progress(step + 1) >= 1:
            print(f"stopping at step {step}: time budget {args.max_minutes} min spent", flush=True)
            break

    os.makedirs(args.out, exist_ok=True)
    if args.validate:
        final = held_out_auc(model, head, bank_sequences, held + benign_probe)
        validation.append({"step": step + 1, **final})
        print(json.dumps({"validation": validation[-1]}), flush=True)
        if best is not None and best["auc"] > final["auc_pattern_similarity"]:
            model.load_state_dict(best["model"])
            head.load_state_dict(best["head"])
            print(f"keeping the checkpoint of step {best['step']} (validation AUC {best['auc']:.4f})", flush=True)
    model.eval()
    held_pair_result = held_pair_ranking(model, head, bank_sequences, held_pairs) if held_pairs else None
    if held_pair_result:
        print(json.dumps({"held_out_pairs": held_pair_result}), flush=True)
    result = {
        "seed": args.seed,
        "steps_run": step + 1,
        "steps_planned": args.steps,
        "batch_rows": args.batch,
        "lr": args.lr,
        "margin": MARGIN,
        "sim_scale": SIM_SCALE,
        "keep_weight": KEEP_WEIGHT,
        "head_weight": HEAD_WEIGHT,
        "pair_batch": args.pair_batch,
        "pairs": {"trained": len(train_pairs), "held_out": len(held_pairs), "held_out_ranking": held_pair_result, "held_out_ranking_before": pairs_before},
        "frozen": f"embeddings and layers 0..{args.freeze_below - 1}",
        "layers": config["num_hidden_layers"],
        "rows": {"train": len(train), "attack": sum(r["attack"] for r in train), "benign": sum(1 - r["attack"] for r in train)},
        "groups": sorted({r["group"] for r in train}),
        "minutes": round((time.time() - started) / 60, 1),
        "curve": curve[:: max(1, len(curve) // 50)],
        # The head trained with the encoder: 384 weights + bias on the normalised window vector.
        "head": {"weights": [round(x, 6) for x in head.weight.detach().squeeze(0).tolist()], "bias": round(head.bias.item(), 6)},
    }
    if args.hold_out:
        after = held_out_auc(model, head, bank_sequences, held + benign_probe)
        result["hold_out"] = {"group": args.hold_out, "rows": len(held), "benign_probe_rows": len(benign_probe), "before": held_out_before, "after": after}
        print(json.dumps(result["hold_out"]), flush=True)
    else:
        if args.validate:
            result["validation"] = {"groups": args.validate, "rows": len(held), "benign_probe_rows": len(benign_probe), "before": held_out_before, "curve": validation, "kept_step": best["step"] if best and best["auc"] > validation[-1]["auc_pattern_similarity"] else step + 1}
        names = [n for n, t in original.items() if t.dtype == torch.float32]
        write_safetensors(os.path.join(args.out, "model.fp16.safetensors"), {n: model.w(n) for n in names})
        with open(os.path.join(args.out, "config.json"), "w") as f:
            json.dump(config, f, indent=2)
        shutil.copy(os.path.join(args.source, "tokenizer.json"), os.path.join(args.out, "tokenizer.json"))
    with open(os.path.join(args.out, "training.json" if not args.hold_out else f"loso-{args.hold_out.replace('/', '_').replace(',', '+')}.json"), "w") as f:
        json.dump(result, f, indent=1)


if __name__ == "__main__":
    main()
