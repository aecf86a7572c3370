<h2><?= $this->e($title) ?></h2>
<ul class="categories">
<?php foreach ($categories as $category): ?>
  <li><a href="<?= $this->e($this->url('/products', ['category' => $category->value])) ?>"><?= $this->e($category->label()) ?></a></li>
<?php endforeach ?>
</ul>
<table>
<?php foreach ($products as $i => $product): ?>
  <tr class="<?= $i % 2 ? 'odd' : 'even' ?>">
    <td><a href="/products/<?= $product->id ?>"><?= $this->e($product->name) ?></a></td>
    <td><?= $this->e(implode(', ', $product->tags)) ?></td>
    <td><?= $this->e($product->price()) ?></td>
  </tr>
<?php endforeach ?>
</table>
<p>Page <?= $page ?> of <?= $pages ?></p>
