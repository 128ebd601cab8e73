"""Write the planted-mistake files of the backprop-ninja corpus from corpus/correct.py.

    python tests/check/ninja/make_corpus.py

Each mistake is one line of correct.py replaced (a combination replaces two). The file
starts with its expected report: one `# expect: GRADIENT DIAGNOSIS LINE` per planted
mistake (LINE in the written file). Run it again after changing correct.py; the test
checks that the files on disk are what it writes.
"""

from __future__ import annotations

from pathlib import Path

HERE = Path(__file__).parent / "corpus"

# name: [(line of correct.py as written there, the mistaken line, gradient, diagnosis)]
MISTAKES: dict[str, list[tuple[str, str, str, str]]] = {
    "unsummed_broadcast": [("dbnbias = dhpreact.sum(0, keepdim=True)", "dbnbias = dhpreact",
                            "dbnbias", "unsummed-broadcast")],
    "keepdim_lost": [("dcounts_sum_inv = (dprobs * counts).sum(1, keepdim=True)",
                      "dcounts_sum_inv = (dprobs * counts).sum(1)",
                      "dcounts_sum_inv", "keepdim-lost")],
    "overwrite_counts": [("dcounts += dcounts_sum * torch.ones_like(counts)",
                          "dcounts = dcounts_sum * torch.ones_like(counts)",
                          "dcounts", "branch-overwritten")],
    "overwrite_bndiff": [("dbndiff += 2 * bndiff * dbndiff2", "dbndiff = 2 * bndiff * dbndiff2",
                          "dbndiff", "branch-overwritten")],
    "overwrite_logits": [
        ("dlogits += dlogit_maxes * F.one_hot(logits.max(1).indices, num_classes=vocab_size)",
         "dlogits = dlogit_maxes * F.one_hot(logits.max(1).indices, num_classes=vocab_size)",
         "dlogits", "branch-overwritten")],
    "matmul_transposed": [("dW2 = h.T @ dlogits", "dW2 = dlogits.T @ h", "dW2",
                           "matmul-grad-transposed")],
    "matmul_wrong_operand": [("dW2 = h.T @ dlogits", "dW2 = hpreact.T @ dlogits", "dW2",
                              "matmul-wrong-operand")],
    "tanh_one_minus_h": [("dhpreact = dh * (1.0 - h**2)", "dhpreact = dh * (1.0 - h)",
                          "dhpreact", "tanh-grad-one-minus-h")],
    "tanh_from_preactivation": [("dhpreact = dh * (1.0 - h**2)",
                                 "dhpreact = dh * (1.0 - hpreact**2)",
                                 "dhpreact", "tanh-grad-from-preactivation")],
    "bessel_n": [("dbndiff2 = torch.ones_like(bndiff2) * dbnvar / (n - 1)",
                  "dbndiff2 = torch.ones_like(bndiff2) * dbnvar / n",
                  "dbndiff2", "bessel-mismatch")],
    "mean_loss_no_1_over_n": [("dlogprobs[range(n), Yb] = -1.0 / n",
                               "dlogprobs[range(n), Yb] = -1.0",
                               "dlogprobs", "mean-loss-missing-1/n")],
    "dlogprobs_sign": [("dlogprobs[range(n), Yb] = -1.0 / n", "dlogprobs[range(n), Yb] = 1.0 / n",
                        "dlogprobs", "dlogprobs-sign")],
    "pow_sign": [("dcounts_sum = -(counts_sum**-2) * dcounts_sum_inv",
                  "dcounts_sum = (counts_sum**-2) * dcounts_sum_inv",
                  "dcounts_sum", "power-rule-sign")],
    "embedding_scatter_overwrite": [("dC[Xb[k, j]] += demb[k, j]", "dC[Xb[k, j]] = demb[k, j]",
                                     "dC", "embedding-scatter-overwrite")],
    "ce_label_term_missing": [
        ("dlogits = (F.softmax(logits, 1) - F.one_hot(Yb, num_classes=vocab_size)) / n",
         "dlogits = F.softmax(logits, 1) / n",
         "dlogits (one expression)", "ce-label-term-missing")],
    "ce_no_1_over_n": [
        ("dlogits = (F.softmax(logits, 1) - F.one_hot(Yb, num_classes=vocab_size)) / n",
         "dlogits = F.softmax(logits, 1) - F.one_hot(Yb, num_classes=vocab_size)",
         "dlogits (one expression)", "mean-loss-missing-1/n")],
    "bn_bessel_factor": [
        ("- n / (n - 1) * bnraw * (dhpreact * bnraw).sum(0))",
         "- bnraw * (dhpreact * bnraw).sum(0))", "dhprebn (one expression)",
         "bn-bessel-factor")],
    "bn_no_1_over_n": [("dhprebn = bngain * bnvar_inv / n * (", "dhprebn = bngain * bnvar_inv * (",
                        "dhprebn (one expression)", "bn-missing-1/n")],
    "bn_bnvar_inv_power": [("dhprebn = bngain * bnvar_inv / n * (",
                            "dhprebn = bngain * bnvar_inv**2 / n * (",
                            "dhprebn (one expression)", "bn-bnvar_inv-power")],
}
COMBINATIONS = {
    "combo_mean_loss_and_tanh": ("mean_loss_no_1_over_n", "tanh_one_minus_h"),
    "combo_overwrite_counts_and_unsummed": ("overwrite_counts", "unsummed_broadcast"),
    "combo_bessel_and_scatter": ("bessel_n", "embedding_scatter_overwrite"),
    "combo_sign_and_transposed": ("dlogprobs_sign", "matmul_transposed"),
}


def planted(name: str, plants: list[tuple[str, str, str, str]], correct: str) -> str:
    lines = correct.splitlines()
    found: list[tuple[int, str, str]] = []
    for old, new, gradient, diagnosis in plants:
        hits = [k for k, line in enumerate(lines) if old in line]
        assert len(hits) == 1, (name, old, hits)
        lines[hits[0]] = lines[hits[0]].replace(old, new)
        start = hits[0]
        while lines[start].startswith(" ") and not lines[start - 1].rstrip().endswith(":"):
            start -= 1  # a continuation line: the statement starts above
        found.append((start, gradient, diagnosis))
    header = [f"# planted mistake(s): {name} (the rest is corpus/correct.py)"]
    header += [f"# expect: {gradient} {diagnosis} {k + 1 + len(plants) + 1}"
               for k, gradient, diagnosis in found]
    return "\n".join(header + lines) + "\n"


def corpus() -> dict[str, str]:
    """File name -> text of every planted file."""
    correct = (HERE / "correct.py").read_text()
    files = {f"{name}.py": planted(name, plants, correct) for name, plants in MISTAKES.items()}
    for name, parts in COMBINATIONS.items():
        files[f"{name}.py"] = planted(name, MISTAKES[parts[0]] + MISTAKES[parts[1]], correct)
    return files


if __name__ == "__main__":
    for file_name, text in corpus().items():
        (HERE / file_name).write_text(text)
    print(f"wrote {len(corpus())} files in {HERE}")
