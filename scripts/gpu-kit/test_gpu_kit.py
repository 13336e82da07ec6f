"""Unit tests of the GPU kit's pure-Python pieces (torch_side.py helpers, kit_report.py), with the system's python3
and no numpy or torch. Run: python3 -m unittest discover -s scripts/gpu-kit -p 'test_*.py' (tests/scripts/gpu-kit.test.ts
runs it in the suite). Expected values are worked out by hand in each case, never read back from the code."""

import json
import math
import os
import struct
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kit_report  # noqa: E402
import torch_side  # noqa: E402


def safetensors_bytes(header, data_bytes):
    text = json.dumps(header).encode()
    return struct.pack("<Q", len(text)) + text + bytes(data_bytes)


class TempFiles(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()

    def tearDown(self):
        self.dir.cleanup()

    def write(self, name, content):
        path = os.path.join(self.dir.name, name)
        with open(path, "wb") as f:
            f.write(content)
        return path


class SafetensorsHeader(TempFiles):
    def test_reads_a_valid_header_and_counts_parameters(self):
        header = {"__metadata__": {"format": "pt"}, "a": {"dtype": "BF16", "shape": [2, 3], "data_offsets": [0, 12]}, "b": {"dtype": "F32", "shape": [4], "data_offsets": [12, 28]}}
        got = torch_side.read_safetensors_header(self.write("m.safetensors", safetensors_bytes(header, 28)))
        self.assertEqual(got["a"]["shape"], [2, 3])
        self.assertEqual(torch_side.parameter_count(got), 2 * 3 + 4)

    def test_refuses_a_header_length_beyond_the_file(self):
        path = self.write("m.safetensors", struct.pack("<Q", 10**6) + b"{}")
        with self.assertRaisesRegex(torch_side.KitInputError, "exceeds the file"):
            torch_side.read_safetensors_header(path)

    def test_refuses_offsets_that_do_not_match_dtype_and_shape(self):
        header = {"a": {"dtype": "F32", "shape": [4], "data_offsets": [0, 8]}}  # 4 floats need 16 bytes
        with self.assertRaisesRegex(torch_side.KitInputError, "'a' offsets"):
            torch_side.read_safetensors_header(self.write("m.safetensors", safetensors_bytes(header, 8)))

    def test_refuses_offsets_past_the_data(self):
        header = {"a": {"dtype": "F16", "shape": [4], "data_offsets": [0, 8]}}
        with self.assertRaisesRegex(torch_side.KitInputError, "inside 4 data bytes"):
            torch_side.read_safetensors_header(self.write("m.safetensors", safetensors_bytes(header, 4)))

    def test_refuses_a_header_that_is_not_json(self):
        with self.assertRaisesRegex(torch_side.KitInputError, "not JSON"):
            torch_side.read_safetensors_header(self.write("m.safetensors", struct.pack("<Q", 3) + b"{x]"))

    def test_refuses_a_truncated_file(self):
        with self.assertRaisesRegex(torch_side.KitInputError, "shorter"):
            torch_side.read_safetensors_header(self.write("m.safetensors", b"\x01\x02"))


class EngineLogits(TempFiles):
    def test_reads_little_endian_float32(self):
        path = self.write("l.f32", struct.pack("<3f", 1.5, -2.0, 0.25))
        self.assertEqual(list(torch_side.read_f32(path, 3)), [1.5, -2.0, 0.25])

    def test_refuses_a_file_of_the_wrong_size(self):
        path = self.write("l.f32", struct.pack("<2f", 1.0, 2.0))
        with self.assertRaisesRegex(torch_side.KitInputError, "expected 12"):
            torch_side.read_f32(path, 3)


class Agreement(unittest.TestCase):
    def test_top_ids_largest_first_ties_by_lower_id(self):
        self.assertEqual(torch_side.top_ids([0.5, 2.0, 2.0, -1.0, 1.0], 3), [1, 2, 4])

    def test_identical_rows_agree(self):
        row = [0.1 * i for i in range(40)]
        a = torch_side.logits_agreement(row, row)
        self.assertTrue(a["pass"])
        self.assertEqual(a["maxAbs"], 0)
        self.assertEqual(a["topKOverlap"], 20)

    def test_small_noise_agrees_and_is_measured(self):
        ref = [float(i) for i in range(30)]  # max |ref| = 29
        eng = ref[:]
        eng[3] += 0.05  # 0.05 / 29 ≈ 1.7e-3 of the range
        a = torch_side.logits_agreement(eng, ref)
        self.assertTrue(a["pass"])
        self.assertAlmostEqual(a["maxAbs"], 0.05, places=6)
        self.assertAlmostEqual(a["maxAbsOverRange"], 0.05 / 29, places=6)

    def test_a_different_top1_disagrees(self):
        ref = [0.0, 1.0, 3.0, 2.99]
        eng = [0.0, 1.0, 2.99, 3.0]
        a = torch_side.logits_agreement(eng, ref, k=2)
        self.assertFalse(a["top1Same"])
        self.assertFalse(a["pass"])
        self.assertEqual(a["topKOverlap"], 2)

    def test_a_large_difference_disagrees_even_with_the_same_top1(self):
        ref = [0.0, 1.0, 10.0]
        eng = [0.5, 1.0, 10.0]  # 0.5 > 2e-2 * 10
        self.assertFalse(torch_side.logits_agreement(eng, ref)["pass"])

    def test_nan_disagrees(self):
        self.assertFalse(torch_side.logits_agreement([math.nan, 1.0], [0.0, 1.0])["pass"])

    def test_rows_of_different_lengths_are_refused(self):
        with self.assertRaises(torch_side.KitInputError):
            torch_side.logits_agreement([1.0], [1.0, 2.0])


class Shapes(unittest.TestCase):
    def test_decode_rate_leaves_the_first_token_out(self):
        # 8 sequences, 65 new tokens in 2.0 s, 1 token in 0.4 s: 64 steps × 8 in 1.6 s.
        self.assertAlmostEqual(torch_side.decode_rate(8, 65, 2.0, 0.4), 320.0)
        self.assertIsNone(torch_side.decode_rate(1, 1, 2.0, 0.4))
        self.assertIsNone(torch_side.decode_rate(1, 5, 0.3, 0.4))

    def test_lora_sequences_have_the_lengths_and_are_seeded(self):
        a = torch_side.lora_sequences([3, 5], 7, seed=2)
        self.assertEqual([len(s) for s in a], [3, 5])
        self.assertTrue(all(0 <= t < 7 for s in a for t in s))
        self.assertEqual(a, torch_side.lora_sequences([3, 5], 7, seed=2))
        self.assertNotEqual(torch_side.lora_sequences([50], 1000, seed=1), torch_side.lora_sequences([50], 1000, seed=2))


class Report(unittest.TestCase):
    def test_status_lines_last_wins_and_junk_is_ignored(self):
        status = kit_report.load_status("device 0 3\nnoise\nchecks 3 40\ndevice 124 90\n")
        self.assertEqual(status, {"device": {"exit": 124, "seconds": 90}, "checks": {"exit": 3, "seconds": 40}})

    def test_exit_descriptions(self):
        self.assertEqual(kit_report.describe_exit(0), "ok")
        self.assertIn("time limit", kit_report.describe_exit(124))
        self.assertIn("checks failed", kit_report.describe_exit(3))

    def test_markdown_table_escapes_pipes(self):
        table = kit_report.markdown_table([("a|b", "m", "x\ny")])
        self.assertIn("| a\\|b | m | x y |", table)
        self.assertTrue(table.startswith("| part | measure | value |\n|---|---|---|\n"))

    def test_missing_phases_are_named_with_their_reason(self):
        data = {"mode": "gpu", "phases": {"device": {"exit": 0, "seconds": 2}, "full": {"exit": 124, "seconds": 330}}}
        rows = kit_report.build_rows(data)
        self.assertIn(("model", "(no figures)", "phase full exit 124: over its time limit"), rows)
        self.assertIn(("checks", "(no figures)", "phase checks not run"), rows)
        self.assertIn(("run", "phase torch", "not run"), rows)
        self.assertEqual(kit_report.exit_code(data), 1)

    def test_exit_code(self):
        ok = {"device": {"exit": 0, "seconds": 1}}
        self.assertEqual(kit_report.exit_code({"phases": ok}), 0)
        self.assertEqual(kit_report.exit_code({"phases": ok, "checks": {"failed": 1}}), 1)
        self.assertEqual(kit_report.exit_code({"phases": {}}), 1)

    def test_skipped_torch_side_shows_its_reason(self):
        rows = kit_report.build_rows({"phases": {}, "torch": {"skipped": "torch not installed"}})
        self.assertIn(("PyTorch", "skipped", "torch not installed"), rows)

    def test_side_by_side_ratios(self):
        decode = {"batch": 1, "engine": {"createMs": 1000, "uploadMs": 500, "planBytes": 2**20, "allocatedPeakBytes": 2 * 2**20}, "prefillTokensPerSecond": 900.0, "decodeTokensPerSecond": 100.0, "dispatchesPerToken": 200.0, "submitsPerToken": 1.0, "roofline": {"fraction": 0.25, "bytesPerStep": 2**20, "bandwidth": 1e12, "ceilingTokensPerSecond": 400.0}}
        seconds = {"rollout": 1.0, "update": 3.0, "forward": 1.0, "backward": 1.5, "optimizer": 0.5}
        step = {"seconds": seconds, "tokens": 100, "generated": 50, "microBatches": 1, "updateFlops": 6e9, "submits": 4, "sequenceLengths": [50, 50]}
        full = {"label": "m", "seed": 0, "config": {"numLayers": 1, "hiddenSize": 8, "numHeads": 2, "numKvHeads": 1, "headDim": 4, "intermediateSize": 16, "vocabSize": 32}, "load": {"writeSeconds": 1.0, "readSeconds": 1.0}, "logits": {"firstEngineSeconds": 2.0}, "promptTokens": 8, "decodeTokens": 4, "decode": [decode], "train": {"rank": 8, "targets": ["q_proj"], "createSeconds": 1.0, "planBytes": 1, "allocatedPeakBytes": 1, "grpo": step, "sft": step}}
        torch = {"device": "GPU", "versions": {"torch": "2", "transformers": "5", "peft": "0", "cuda": "13"}, "logits": {"pass": True, "maxAbs": 1e-3, "maxAbsOverRange": 1e-4, "top1Same": True, "k": 20, "topKOverlap": 20}, "decode": [{"batch": 1, "decodeTokensPerSecond": 50.0}], "lora": {"grpo": {"seconds": 1.5}}}
        rows = dict(((a, b), c) for a, b, c in kit_report.build_rows({"phases": {}, "full": full, "torch": torch}))
        self.assertEqual(rows[("PyTorch B=1", "greedy decode tok/s (bf16)")], "50; engine / PyTorch = 2")
        self.assertEqual(rows[("engine B=1", "roofline fraction of decode")], "25.0 % (1.0 MiB per step at 1000.0 GB/s: ceiling 400 tok/s)")
        # update GFLOP/s = 6 GFLOP / 3 s = 2; engine model seconds 1 + 1.5 + 0.5 = 3 vs PyTorch 1.5: ratio 2.
        self.assertIn("; 2; 4", rows[("engine GRPO step", "tokens; update GFLOP/s; submits")])
        self.assertIn("engine's forward + backward + optimizer 3.000 s (ratio 2)", rows[("PyTorch GRPO shapes", "PEFT LoRA step (forward + backward + AdamW)")])
        self.assertNotIn(("PyTorch SFT shapes", "PEFT LoRA step (forward + backward + AdamW)"), rows)
        self.assertIn("agree", rows[("PyTorch", "last-position logits vs the engine (f32)")])

    def test_profile_rows_per_step_shares_and_busy_fraction(self):
        # 4 steps: 40 ms of GPU time in 100 ms wall -> 10 ms of 25 ms per step, 40 % busy; 72 dispatches -> 18 per step;
        # kernels' shares of the 40 ms: 30 ms is 75 %, 10 ms is 25 %.
        profile = {"steps": 4, "wallSeconds": 0.1, "dispatches": 72, "gpuSeconds": 0.04, "kernels": [{"kernel": "matmul.v2", "dispatches": 56, "seconds": 0.03}, {"kernel": "", "dispatches": 16, "seconds": 0.01}]}
        self.assertEqual(kit_report.describe_profile(profile), "GPU 10.00 ms of 25.00 ms wall per step (40 % busy), 18 dispatches per step; matmul.v2 75 % (56), (unlabelled) 25 % (16)")
        self.assertIn("no GPU time recorded", kit_report.describe_profile({**profile, "gpuSeconds": 0, "kernels": []}))


if __name__ == "__main__":
    unittest.main()
