# A Ray task that asks for GPU memory rather than a fraction of a GPU (docs/ray.md): it runs on any worker of
# examples/ray/raycluster-gpu-memory.yaml that has 8 GiB of gpu_memory left, whatever its GPU model.
import ray

GiB = 1024**3


# num_gpus: a small fraction, so that Ray makes the device visible to the task; gpu_memory: what is counted.
@ray.remote(num_gpus=0.01, resources={"gpu_memory": 8 * GiB})
def embed(batch):
    import torch

    # Ray counts the bytes but does not enforce them: keep within 8 GiB of whatever card this is.
    torch.cuda.set_per_process_memory_fraction(8 * GiB / torch.cuda.get_device_properties(0).total_memory)
    return torch.tensor(batch, device="cuda").sum().item()


if __name__ == "__main__":
    ray.init()
    print(ray.get([embed.remote([i, i + 1]) for i in range(8)]))
