"""A feed-forward classifier trained from a DataLoader, in the style of the PyTorch tutorials.

Written for this project as a specification for `micrograd.torch`: TensorDataset and a
shuffling DataLoader with its own generator, train()/eval(), no_grad(), accuracy with
torch.max(out.data, 1) and argmax, CrossEntropyLoss, Adam, StepLR, and a state_dict round
trip through torch.save/torch.load. Prints one `name value` per line.
"""

import os
import tempfile

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

device = "cuda" if torch.cuda.is_available() else "cpu"

# hyper-parameters
input_size = 2
hidden_size = 32
num_classes = 3
num_epochs = 6
batch_size = 32
learning_rate = 0.01

# three Gaussian blobs in the plane
torch.manual_seed(0)
centers = torch.tensor([[0.0, 3.0], [-2.5, -1.5], [2.5, -1.5]])
labels = torch.randint(0, num_classes, (600,))
points = centers[labels] + 1.2 * torch.randn(600, input_size)
train_dataset = TensorDataset(points[:480], labels[:480])
test_dataset = TensorDataset(points[480:], labels[480:])
print("train_size", len(train_dataset))
print("first_label", train_dataset[0][1].item())

train_loader = DataLoader(dataset=train_dataset, batch_size=batch_size, shuffle=True,
                          generator=torch.Generator().manual_seed(1234))
test_loader = DataLoader(dataset=test_dataset, batch_size=batch_size, shuffle=False)
print("train_batches", len(train_loader))


class NeuralNet(nn.Module):
    def __init__(self, input_size, hidden_size, num_classes):
        super().__init__()
        self.fc1 = nn.Linear(input_size, hidden_size)
        self.relu = nn.ReLU()
        self.fc2 = nn.Linear(hidden_size, num_classes)

    def forward(self, x):
        out = self.fc1(x)
        out = self.relu(out)
        out = self.fc2(out)
        return out


model = NeuralNet(input_size, hidden_size, num_classes).to(device)
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.Adam(model.parameters(), lr=learning_rate)
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=2, gamma=0.5)

total_step = len(train_loader)
for epoch in range(num_epochs):
    model.train()
    running_loss = 0.0
    for _i, (inputs, targets) in enumerate(train_loader):
        inputs = inputs.to(device)
        targets = targets.to(device)

        outputs = model(inputs)
        loss = criterion(outputs, targets)

        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        running_loss += loss.item()
    scheduler.step()
    print(f"epoch{epoch}_loss", running_loss / total_step)
    print(f"epoch{epoch}_last_batch_loss", loss.item())
    print(f"epoch{epoch}_lr", scheduler.get_last_lr()[0])


def evaluate(net):
    net.eval()
    with torch.no_grad():
        correct = 0
        total = 0
        for inputs, targets in test_loader:
            outputs = net(inputs)
            _, predicted = torch.max(outputs.data, 1)
            total += targets.size(0)
            correct += (predicted == targets).sum().item()
    return correct, total


correct, total = evaluate(model)
print("test_correct", correct)
print("test_accuracy", 100 * correct / total)

with torch.no_grad():
    logits = model(points[480:])
    print("argmax_correct", (logits.argmax(dim=1) == labels[480:]).sum().item())
    probs = torch.softmax(logits, dim=1)
    print("probs_row_sum", probs.sum(dim=1).mean().item())

# state_dict round trip through a file
with tempfile.TemporaryDirectory() as tmp:
    path = os.path.join(tmp, "model.ckpt")
    torch.save(model.state_dict(), path)
    state = torch.load(path)
    print("state_keys", ",".join(state.keys()))
    restored = NeuralNet(input_size, hidden_size, num_classes)
    restored.load_state_dict(state)
    restored.eval()
    with torch.no_grad():
        same = torch.equal(restored(points[480:]), model(points[480:]))
    print("restored_outputs_equal", same)
    print("restored_correct", evaluate(restored)[0])
    print("restored_fc1_bias_sum", restored.fc1.bias.sum().item())
